//! Generated gRPC code for Gatehouse's services, one module per proto package, with each
//! service's name and default address (its clients' default `<NAME>_URL`).

pub mod identity {
    pub const NAME: &str = "identity";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50051";

    pub mod v1 {
        tonic::include_proto!("gatehouse.identity.v1");
    }
}

pub mod session {
    pub const NAME: &str = "session";
    pub const DEFAULT_LISTEN: &str = "127.0.0.1:50052";

    pub mod v1 {
        tonic::include_proto!("gatehouse.session.v1");
    }
}
