//! `toolgate::unknown_type` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a declared argument type that is not one of the language's types (`string`,
    /// `number`, `integer`, `boolean`, `path`, `array<T>`, `object`, `any`), with a
    /// did-you-mean; an element type given to a type other than `array` (`string<path>`);
    /// and a type nesting more than 16 arrays.
    ///
    /// ## Why is this bad?
    /// A type is checked on every call before any rule runs: a call whose argument has
    /// another type is refused (`invalid_argument`). A type the engine does not know cannot
    /// be checked, and guessing would let calls through that the author meant to refuse, so
    /// the policy does not load.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command: str, timeout?: int)
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command: string, timeout?: integer)
    /// ```
    pub static UNKNOWN_TYPE = {
        code: UNKNOWN_TYPE,
        stage: Resolve,
    }
}
