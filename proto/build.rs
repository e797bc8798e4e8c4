//! Compiles the .proto files with protox (pure Rust), so no protoc is needed to build. Every
//! `.proto` under `gatehouse/` is compiled: a new capability is a new file, nothing to list here.

use std::path::{Path, PathBuf};

fn protos(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            protos(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=gatehouse");
    let mut files = Vec::new();
    protos(Path::new("gatehouse"), &mut files)?;
    files.sort();
    let descriptors = protox::compile(&files, ["."])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
