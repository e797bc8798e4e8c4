//! Generated gRPC code for Gatehouse's services, one module per proto package.

pub mod identity {
    pub mod v1 {
        tonic::include_proto!("gatehouse.identity.v1");
    }
}

pub mod session {
    pub mod v1 {
        tonic::include_proto!("gatehouse.session.v1");
    }
}
