//! Prints a generated benchmark policy: `cargo run --example generate_policy -- wide|deep N`
//! (the layouts of `benches/decide.rs`), or `-- per_tool SHAPE N` (one rule per tool, the
//! shapes of `benches/per_tool.rs`).

#[path = "../benches/support/generate.rs"]
mod generate;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10);
    if args.get(1).map(String::as_str) == Some("per_tool") {
        let n = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(10);
        let Some(&(_, glob, _)) = generate::SHAPES
            .iter()
            .find(|(name, ..)| args.get(2).map(String::as_str) == Some(*name))
        else {
            eprintln!("usage: generate_policy per_tool SHAPE N (SHAPE: sibling_dirs, rs_under_dir, url_host, npm_run)");
            std::process::exit(2);
        };
        print!("{}", generate::per_tool(n, glob));
        return;
    }
    match args.get(1).map(String::as_str) {
        Some("deep") => print!("{}", generate::deep(n)),
        _ => print!("{}", generate::wide(n)),
    }
}
