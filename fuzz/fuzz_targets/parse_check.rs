//! Bytes -> text -> parse + resolve + lint (`toolgate check`) -> compile -> test blocks.
//! Any panic is a bug: every input must end in diagnostics or a compiled engine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate::source::SourceMap;

fuzz_target!(|data: &[u8]| {
    // Policies must be UTF-8 (the loader refuses anything else before parsing).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    sources.add("fuzz.policy", text);
    let (_, diags) = toolgate::load::check_sources(sources.clone());
    let compiled = toolgate::load::engine_from_sources(sources);
    if let Ok((engine, policy, _)) = &compiled {
        let _ = toolgate::testing::run_tests(policy, engine);
        for agent in engine.agent_names().map(String::from).collect::<Vec<_>>() {
            let _ = engine.visible_tools(&agent);
        }
    }
    // Rendering the diagnostics must not panic either (spans inside the text).
    let sources = match compiled {
        Ok((_, policy, _)) => policy.sources,
        Err(e) => e.sources,
    };
    let _ = diags.render(&sources, false, 80);
});
