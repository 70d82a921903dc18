//! Prints a generated benchmark policy: `cargo run --example generate_policy -- wide|deep N`
//! (the layouts of `benches/decide.rs`).

#[path = "../benches/support/generate.rs"]
mod generate;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10);
    match args.get(1).map(String::as_str) {
        Some("deep") => print!("{}", generate::deep(n)),
        _ => print!("{}", generate::wide(n)),
    }
}
