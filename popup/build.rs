//! Links the popup's wasm module with its relocations (`--emit-relocs`): `scripts/build`'s
//! splitter reads them to cut the module at its `#[lazy]` functions. Native builds are left alone.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=--emit-relocs");
    }
}
