//! Compiles or loads one generated 10,000-rule policy, for profiling under callgrind:
//! `cargo build --release --example compile_load` then
//! `valgrind --tool=callgrind target/release/examples/compile_load compile|load wide|deep [N]`.
//! `phases wide|deep` prints the median wall-clock time of each step over 11 runs; `loads
//! wide|deep` the median of 101 loads of the bundle; `hash wide|deep` of 101 SHA-256s of it.

#[path = "../benches/support/generate.rs"]
mod generate;

use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("compile");
    let layout = args.get(2).map(String::as_str).unwrap_or("wide");
    let n = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let text = match layout {
        "deep" => generate::deep(n),
        _ => generate::wide(n),
    };
    if what == "phases" {
        let (mut front, mut compile, mut all, mut load) = (vec![], vec![], vec![], vec![]);
        for _ in 0..11 {
            let t = Instant::now();
            let mut m = toolgate::source::SourceMap::new();
            m.add("bench.policy", text.clone());
            let (policy, _) = toolgate::load::policy_from_sources(m);
            front.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let program = toolgate::compile::compile(&policy).expect("compiles");
            compile.push(t.elapsed().as_secs_f64() * 1e3);
            drop(program);
            let t = Instant::now();
            let engine = toolgate::load::engine_from_str("bench.policy", &text).expect("compiles");
            all.push(t.elapsed().as_secs_f64() * 1e3);
            let bytes = engine.to_bundle();
            let t = Instant::now();
            let loaded = toolgate::Engine::from_bundle(&bytes).expect("loads");
            load.push(t.elapsed().as_secs_f64() * 1e3);
            drop(loaded);
        }
        println!(
            "{layout}: parse+resolve {:.1} ms, compile {:.1} ms, engine_from_str {:.1} ms, load {:.2} ms",
            median(front),
            median(compile),
            median(all),
            median(load)
        );
        return;
    }
    let engine = toolgate::load::engine_from_str("bench.policy", &text).expect("compiles");
    if what == "loads" {
        let bytes = engine.to_bundle();
        let times = (0..101)
            .map(|_| {
                let t = Instant::now();
                let loaded = toolgate::Engine::from_bundle(&bytes).expect("loads");
                let ms = t.elapsed().as_secs_f64() * 1e3;
                drop(loaded);
                ms
            })
            .collect();
        println!("{layout}: load {:.2} ms (median of 101)", median(times));
        return;
    }
    if what == "hash" {
        use sha2::Digest;
        let bytes = engine.to_bundle();
        let times = (0..101)
            .map(|_| {
                let t = Instant::now();
                let d = sha2::Sha256::digest(&bytes);
                std::hint::black_box(d);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        println!(
            "{layout}: SHA-256 of the bundle {:.2} ms (median of 101)",
            median(times)
        );
        return;
    }
    if what == "load" {
        let bytes = engine.to_bundle();
        let loaded = toolgate::Engine::from_bundle(&bytes).expect("loads");
        println!("{} bytes, {}", bytes.len(), loaded.policy_hash());
    } else {
        println!("{}", engine.policy_hash());
    }
}
