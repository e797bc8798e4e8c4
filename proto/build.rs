//! Compiles the .proto files with protox (pure Rust), so no protoc is needed to build.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "gatehouse/identity/v1/identity.proto",
        "gatehouse/session/v1/session.proto",
    ];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["."])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
