//! Prints a generated benchmark policy: `cargo run --example generate_policy -- wide|deep N`
//! (the layouts of `benches/decide.rs`), `-- per_tool SHAPE N` (one rule per tool, the
//! shapes of `benches/per_tool.rs`), `-- agents N` (N one-rule agents) or `-- regex N K`
//! (K agents holding the same N short regexes with Unicode classes on one argument).

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
        Some("agents") => print!("{}", generate::agents(n)),
        Some("regex") => {
            let k = args.get(3).and_then(|k| k.parse().ok()).unwrap_or(1);
            print!("{}", generate::regex_agents(n, k));
        }
        _ => print!("{}", generate::wide(n)),
    }
}
