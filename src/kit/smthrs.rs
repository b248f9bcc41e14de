//! The `@smthrs/std` kit's generator, reproduced draw for draw
//! (conformance-kit §2).
//!
//! * §2.1: [`Mulberry32`], the PRNG, with the TypeScript helpers `pick` and
//!   `chance`.
//! * §2.2: the vocabularies ([`STEMS`], [`EXTENSIONS`], [`DIRECTORIES`],
//!   [`LINES`], [`GREP_PATTERNS`], [`GREP_GLOBS`], [`GLOB_PATTERNS`]) and the
//!   ignore fixture ([`IGNORE_FIXTURE`]), exact and in order.
//! * §2.3: [`plan`], consuming draws in exactly the TypeScript order.
//! * §2.4: the spec's test vectors are this module's tests.
//!
//! Exactness matters more than elegance here: one extra or missing draw
//! shifts every later value, so a seed would name a different tree on each
//! side and a divergence could not be replayed across implementations. Each
//! step below carries its §2.3 step number.

use std::collections::HashSet;

use crate::contract::{GlobInput, GrepInput};
use crate::kit::plan::{GeneratedFile, Plan, PlanOptions};

/// The name recorded in [`Plan::generator`].
pub const GENERATOR: &str = "smthrs";

/// The version recorded in [`Plan::version`]; bump it with any change to the
/// draws or vocabularies.
pub const VERSION: u32 = 1;

/// File stems (§2.2); some hold `-`, `_`, `.` or an uppercase letter so globs
/// and case rules meet them.
pub const STEMS: [&str; 10] = [
    "alpha", "beta", "gamma", "Delta", "e-psilon", "ze_ta", "eta2", "th.eta", "iota", "kappa",
];

/// File extensions (§2.2).
pub const EXTENSIONS: [&str; 5] = [".ts", ".js", ".txt", ".py", ".md"];

/// Parent directories (§2.2); `""` is the root level.
pub const DIRECTORIES: [&str; 5] = ["", "one", "one/two", "three", "three/four/five"];

/// The line vocabulary (§2.2), including an empty line and one indented by
/// four spaces.
pub const LINES: [&str; 12] = [
    "needle",
    "a needle in the line",
    "Needle capitalised",
    "no match here",
    "needle? with a question mark",
    "a+b and x*y and [z]",
    "def widen(value):",
    "class Widget:",
    "    needle = value",
    "function widen(value) {",
    "",
    "trailing needle",
];

/// Grep patterns (§2.2).
pub const GREP_PATTERNS: [&str; 8] = [
    "needle",
    "Needle",
    "needle?",
    "a+b",
    "[z]",
    "^needle$",
    "widen",
    "no match at all",
];

/// The single glob a grep call may carry (§2.2).
pub const GREP_GLOBS: [&str; 4] = ["*.ts", "*.txt", "!*.js", "**/*.ts"];

/// Glob-call patterns (§2.2).
pub const GLOB_PATTERNS: [&str; 6] = [
    "**/*.ts",
    "*.ts",
    "**/*",
    "one/**/*.ts",
    "**/*.{ts,js}",
    "**/alpha*",
];

/// The ignore fixture (§2.3), `(path, content)`, appended after the
/// generated files when there is at least one. It exercises negation, root
/// anchoring, directory rules, a nested `.gitignore` and a file named like
/// an ignored directory.
pub const IGNORE_FIXTURE: [(&str, &str); 13] = [
    (
        ".gitignore",
        "*.ignored\n!keep.ignored\n/root-only.ts\ncache/\n",
    ),
    ("drop.ignored", "needle\n"),
    ("keep.ignored", "needle\n"),
    ("root-only.ts", "needle\n"),
    ("cache/a.ts", "needle\n"),
    (
        "nested/.gitignore",
        "!keep.ignored\n/anchored.ts\nframes/\n",
    ),
    ("nested/keep.ignored", "needle\n"),
    ("nested/drop.ignored", "needle\n"),
    ("nested/anchored.ts", "needle\n"),
    ("nested/deep/anchored.ts", "needle\n"),
    ("nested/root-only.ts", "needle\n"),
    ("nested/frames/a.ts", "needle\n"),
    ("other/frames", "needle\n"),
];

/// The mulberry32 PRNG of §2.1, bit-exact with the TypeScript kit.
///
/// ```
/// use lawsuite::kit::smthrs::Mulberry32;
/// let mut rng = Mulberry32::new(1);
/// assert_eq!(rng.next_f64(), 0.6270739405881613);
/// // JS `seed >>> 0`: -1 wraps to 2^32 - 1, 1.9 truncates to 1.
/// assert_eq!(Mulberry32::from_js_number(-1.0), Mulberry32::new(u32::MAX));
/// assert_eq!(Mulberry32::from_js_number(1.9), Mulberry32::new(1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mulberry32 {
    state: u32,
}

impl Mulberry32 {
    /// A generator whose state starts at `seed`.
    pub fn new(seed: u32) -> Mulberry32 {
        Mulberry32 { state: seed }
    }

    /// A generator seeded as the TypeScript kit seeds it from a JS number:
    /// `seed >>> 0`, i.e. ECMAScript `ToUint32`. Fractions truncate toward
    /// zero, values wrap modulo 2^32 (so negatives wrap), and `NaN` and
    /// infinities become 0.
    pub fn from_js_number(seed: f64) -> Mulberry32 {
        if !seed.is_finite() {
            return Mulberry32::new(0);
        }
        // `rem_euclid` on an integral f64 is exact and lands in
        // [0, 2^32), so the cast neither saturates nor rounds.
        let wrapped = seed.trunc().rem_euclid(4_294_967_296.0);
        Mulberry32::new(wrapped as u32)
    }

    /// The next draw, a float in `[0, 1)` with 32 bits of randomness.
    pub fn next_f64(&mut self) -> f64 {
        // u32 wrapping arithmetic is JS's `|0`/`Math.imul`/`>>> 0` (§2.1).
        self.state = self.state.wrapping_add(0x6D2B_79F5);
        let s = self.state;
        let mut t = (s ^ (s >> 15)).wrapping_mul(s | 1);
        t = t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61)) ^ t;
        f64::from(t ^ (t >> 14)) / 4_294_967_296.0
    }

    /// `floor(draw × n)`: a uniform integer in `0..n` (0 when `n` is 0).
    /// One draw, whatever `n`.
    pub fn below(&mut self, n: usize) -> usize {
        // draw < 1 and n < 2^53 keep the product below n, so the truncating
        // cast is `Math.floor` and the result is a valid index.
        (self.next_f64() * n as f64) as usize
    }

    /// `list[floor(draw × len)]`. Always one draw, as in TypeScript, even
    /// for an empty list, which gives `None` (JS's `undefined`).
    pub fn pick<'a, T>(&mut self, list: &'a [T]) -> Option<&'a T> {
        let index = self.below(list.len());
        list.get(index)
    }

    /// `draw < p`. One draw.
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// [`pick`](Self::pick) over a non-empty vocabulary. The `""` fallback
    /// is unreachable for the constants above; it exists so that no input
    /// can make the generator panic.
    fn pick_str(&mut self, list: &[&'static str]) -> &'static str {
        self.pick(list).copied().unwrap_or("")
    }
}

/// The TypeScript kit's `plan({ seed, root, files, calls })` (§2.3): the
/// same files, calls and order for the same seed.
///
/// Roots of calls are `root` itself or `"{root}/{path}"` by plain string
/// concatenation, so a root `"/"` gives `"//one/a.ts"`, exactly as the kit
/// does.
///
/// ```
/// use lawsuite::kit::plan::PlanOptions;
/// use lawsuite::kit::smthrs::plan;
///
/// let plan = plan(1, "/r", &PlanOptions::default());
/// assert_eq!((plan.generator.as_str(), plan.version, plan.seed), ("smthrs", 1, 1));
/// assert_eq!(plan.files.len(), 12 + 13); // generated + ignore fixture
/// assert_eq!(plan.files[0].path, "three/alpha0.txt");
/// assert_eq!((plan.grep.len(), plan.glob.len()), (12, 12));
/// assert_eq!(plan.glob[0].pattern, "**/*.ts");
/// ```
pub fn plan(seed: u32, root: &str, options: &PlanOptions) -> Plan {
    let mut rng = Mulberry32::new(seed);
    let files = generate_files(&mut rng, options.files);

    let mut roots = Vec::with_capacity(files.len() + 1);
    roots.push(root.to_string());
    roots.extend(files.iter().map(|file| format!("{root}/{}", file.path)));

    let grep = (0..options.calls)
        .map(|_| grep_call(&mut rng, root, &roots))
        .collect();
    let glob = (0..options.calls)
        .map(|_| glob_call(&mut rng, root))
        .collect();

    Plan {
        generator: GENERATOR.to_string(),
        version: VERSION,
        seed: u64::from(seed),
        ground: crate::peer::Ground::Shared,
        root: root.to_string(),
        files,
        grep,
        glob,
        // The TypeScript kit has no file-flow calls; empty lists are not
        // serialised, so the plan's bytes stay the kit's.
        read: Vec::new(),
        flow: Vec::new(),
        ls: Vec::new(),
    }
}

/// §2.3 "Files": generated files, then the ignore fixture when `count > 0`.
fn generate_files(rng: &mut Mulberry32, count: usize) -> Vec<GeneratedFile> {
    let mut files = Vec::with_capacity(count + IGNORE_FIXTURE.len());
    let mut seen = HashSet::new();
    for index in 0..count {
        // 1, 2: dir, then stem, then extension.
        let dir = rng.pick_str(&DIRECTORIES);
        let stem = rng.pick_str(&STEMS);
        let ext = rng.pick_str(&EXTENSIONS);
        let name = format!("{stem}{index}{ext}");
        let path = if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        };
        // 3: unreachable (the index is in the name) but kept, because in
        // TypeScript it skips this index's body draws.
        if !seen.insert(path.clone()) {
            continue;
        }
        // 4: the bound is re-drawn before every iteration; `line < k` with
        // k ≥ 1 makes the first iteration certain and k ≤ 8 ends the loop.
        let mut lines = Vec::new();
        loop {
            let bound = 1 + rng.below(8);
            if lines.len() >= bound {
                break;
            }
            lines.push(rng.pick_str(&LINES));
        }
        // 5: final newline on a separate draw.
        let mut content = lines.join("\n");
        if rng.chance(0.8) {
            content.push('\n');
        }
        files.push(GeneratedFile::new(path, content));
    }
    if count > 0 {
        files.extend(
            IGNORE_FIXTURE
                .iter()
                .map(|(path, content)| GeneratedFile::new(*path, *content)),
        );
    }
    files
}

/// §2.3 "Grep calls": fourteen steps, some conditional on earlier draws.
fn grep_call(rng: &mut Mulberry32, root: &str, roots: &[String]) -> GrepInput {
    let fixed_strings = rng.chance(0.4); // 1
    let ignore_case = rng.chance(0.25); // 2
    let pattern = rng.pick_str(&GREP_PATTERNS); // 3
    let call_root = if rng.chance(0.75) {
        root.to_string()
    } else {
        // `roots` always holds `root` first, so the fallback never fires.
        rng.pick(roots).cloned().unwrap_or_else(|| root.to_string())
    }; // 4
    // 5: no draw at all when ignoreCase is set; the kit never combines the
    // two flags (§6 item 3 is the drift that combination caused).
    let smart_case = !ignore_case && rng.chance(0.3);
    let globs = if rng.chance(0.4) {
        vec![rng.pick_str(&GREP_GLOBS).to_string()]
    } else {
        Vec::new()
    }; // 6
    let before_context = rng.below(3) as u64; // 7
    let after_context = rng.below(3) as u64; // 8
    let max_count = if rng.chance(0.3) {
        Some(1 + rng.below(2) as u64)
    } else {
        None
    }; // 9
    let files_with_matches = rng.chance(0.25); // 10
    let hidden = rng.chance(0.5); // 11
    let no_ignore = rng.chance(0.25); // 12
    let symbols = rng.chance(0.3); // 13
    let limit = 1 + rng.below(40) as u64; // 14
    GrepInput {
        pattern: pattern.to_string(),
        root: call_root,
        fixed_strings,
        ignore_case,
        smart_case,
        globs,
        before_context,
        after_context,
        max_count,
        files_with_matches,
        hidden,
        no_ignore,
        symbols,
        limit,
    }
}

/// §2.3 "glob calls": pattern, hidden, noIgnore, limit; the root is never
/// drawn.
fn glob_call(rng: &mut Mulberry32, root: &str) -> GlobInput {
    let pattern = rng.pick_str(&GLOB_PATTERNS);
    let hidden = rng.chance(0.5);
    let no_ignore = rng.chance(0.25);
    let limit = 1 + rng.below(20) as u64;
    GlobInput {
        pattern: pattern.to_string(),
        root: root.to_string(),
        hidden,
        no_ignore,
        limit,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// §2.4: seed 1, first five draws.
    #[test]
    fn mulberry32_seed_1_first_five_draws() {
        let mut rng = Mulberry32::new(1);
        let draws: Vec<f64> = (0..5).map(|_| rng.next_f64()).collect();
        assert_eq!(
            draws,
            [
                0.6270739405881613,
                0.002735721180215478,
                0.5274470399599522,
                0.9810509674716741,
                0.9683778982143849,
            ]
        );
    }

    #[test]
    fn from_js_number_is_to_uint32() {
        let state = |seed: f64| Mulberry32::from_js_number(seed).state;
        assert_eq!(state(1.0), 1);
        assert_eq!(state(1.9), 1);
        assert_eq!(state(-1.0), u32::MAX);
        assert_eq!(state(-1.5), u32::MAX); // truncates to -1 first
        assert_eq!(state(-0.0), 0);
        assert_eq!(state(4_294_967_296.0), 0);
        assert_eq!(state(4_294_967_297.0), 1);
        assert_eq!(state(-4_294_967_297.0), u32::MAX);
        assert_eq!(state(1e300), 0); // a multiple of 2^32
        assert_eq!(state(f64::NAN), 0);
        assert_eq!(state(f64::INFINITY), 0);
        assert_eq!(state(f64::NEG_INFINITY), 0);
    }

    #[test]
    fn pick_on_empty_list_draws_and_gives_none() {
        let mut rng = Mulberry32::new(1);
        let empty: [u8; 0] = [];
        assert_eq!(rng.pick(&empty), None);
        // The draw was consumed: the next one is seed 1's second.
        assert_eq!(rng.next_f64(), 0.002735721180215478);
    }

    /// §2.4: the first seven generated files of `plan({seed: 1, root: "/r"})`.
    #[test]
    fn seed_1_first_seven_files() {
        let plan = plan(1, "/r", &PlanOptions::default());
        let expected: [(&str, &str); 7] = [
            (
                "three/alpha0.txt",
                "trailing needle\nclass Widget:\na+b and x*y and [z]\na+b and x*y and [z]\n",
            ),
            (
                "one/two/gamma1.ts",
                "needle\nfunction widen(value) {\nNeedle capitalised\n",
            ),
            (
                "one/two/th.eta2.js",
                "class Widget:\nfunction widen(value) {\n",
            ),
            (
                "one/two/th.eta3.md",
                "function widen(value) {\nno match here\nNeedle capitalised\n",
            ),
            (
                "one/two/beta4.js",
                "class Widget:\nNeedle capitalised\n    needle = value\nno match here\ntrailing needle\n    needle = value\n\na needle in the line",
            ),
            (
                "one/iota5.txt",
                "    needle = value\n    needle = value\na needle in the line\na needle in the line\n",
            ),
            ("one/two/Delta6.py", "def widen(value):"),
        ];
        let actual: Vec<(&str, &str)> = plan
            .files
            .iter()
            .take(7)
            .map(|file| {
                (
                    file.path.as_str(),
                    std::str::from_utf8(&file.content).unwrap_or("<invalid utf-8>"),
                )
            })
            .collect();
        assert_eq!(actual, expected);
    }

    #[test]
    fn default_plan_has_fixture_after_generated_files() {
        let plan = plan(1, "/r", &PlanOptions::default());
        assert_eq!(plan.files.len(), 12 + IGNORE_FIXTURE.len());
        let fixture: Vec<(&str, &[u8])> = plan.files[12..]
            .iter()
            .map(|file| (file.path.as_str(), file.content.as_slice()))
            .collect();
        let expected: Vec<(&str, &[u8])> = IGNORE_FIXTURE
            .iter()
            .map(|(path, content)| (*path, content.as_bytes()))
            .collect();
        assert_eq!(fixture, expected);
    }

    /// §2.4: the first two grep calls and the first glob call, byte for byte.
    #[test]
    fn seed_1_first_calls_as_json() -> TestResult {
        let plan = plan(1, "/r", &PlanOptions::default());
        assert_eq!(
            serde_json::to_string(&plan.grep[0])?,
            r#"{"pattern":"needle?","root":"/r/other/frames","fixedStrings":true,"ignoreCase":true,"smartCase":false,"globs":["*.txt"],"beforeContext":0,"afterContext":0,"filesWithMatches":false,"hidden":true,"noIgnore":true,"symbols":false,"limit":13}"#
        );
        assert_eq!(
            serde_json::to_string(&plan.grep[1])?,
            r#"{"pattern":"a+b","root":"/r","fixedStrings":false,"ignoreCase":false,"smartCase":false,"globs":["!*.js"],"beforeContext":2,"afterContext":2,"maxCount":1,"filesWithMatches":false,"hidden":false,"noIgnore":true,"symbols":false,"limit":18}"#
        );
        assert_eq!(
            serde_json::to_string(&plan.glob[0])?,
            r#"{"pattern":"**/*.ts","root":"/r","hidden":false,"noIgnore":false,"limit":5}"#
        );
        Ok(())
    }

    /// §2.4: `plan({seed: 1, root: "/tiny", files: 0, calls: 1})`.
    #[test]
    fn seed_1_tiny_plan() -> TestResult {
        let plan = plan(1, "/tiny", &PlanOptions { files: 0, calls: 1 });
        assert!(plan.files.is_empty(), "no fixture when files = 0");
        assert_eq!(
            serde_json::to_string(&plan.grep)?,
            r#"[{"pattern":"[z]","root":"/tiny","fixedStrings":false,"ignoreCase":true,"smartCase":false,"globs":["!*.js"],"beforeContext":2,"afterContext":1,"filesWithMatches":false,"hidden":true,"noIgnore":true,"symbols":false,"limit":10}]"#
        );
        assert_eq!(
            serde_json::to_string(&plan.glob)?,
            r#"[{"pattern":"**/*.ts","root":"/tiny","hidden":true,"noIgnore":true,"limit":8}]"#
        );
        assert_eq!(
            serde_json::to_string(&plan)?,
            concat!(
                r#"{"generator":"smthrs","version":1,"seed":1,"root":"/tiny","files":[],"#,
                r#""grep":[{"pattern":"[z]","root":"/tiny","fixedStrings":false,"ignoreCase":true,"smartCase":false,"globs":["!*.js"],"beforeContext":2,"afterContext":1,"filesWithMatches":false,"hidden":true,"noIgnore":true,"symbols":false,"limit":10}],"#,
                r#""glob":[{"pattern":"**/*.ts","root":"/tiny","hidden":true,"noIgnore":true,"limit":8}]}"#
            )
        );
        Ok(())
    }

    #[test]
    fn roots_are_plain_concatenation() {
        let plan = plan(1, "/", &PlanOptions::default());
        let allowed: HashSet<String> = std::iter::once("/".to_string())
            .chain(plan.files.iter().map(|file| format!("//{}", file.path)))
            .collect();
        assert!(plan.grep.iter().all(|call| allowed.contains(&call.root)));
        assert!(plan.grep.iter().any(|call| call.root.starts_with("//")));
    }

    /// The kit relies on these invariants of every generated call (§2.3).
    #[test]
    fn generated_calls_respect_their_ranges() {
        for seed in 0..200 {
            let plan = plan(seed, "/r", &PlanOptions::default());
            for call in &plan.grep {
                assert!(!(call.ignore_case && call.smart_case), "seed {seed}");
                assert!(call.before_context <= 2 && call.after_context <= 2);
                assert!(matches!(call.max_count, None | Some(1..=2)));
                assert!((1..=40).contains(&call.limit));
                assert!(call.globs.len() <= 1);
            }
            for call in &plan.glob {
                assert!((1..=20).contains(&call.limit));
                assert_eq!(call.root, "/r");
            }
            for file in &plan.files[..12] {
                let lines = file.content.split(|&b| b == b'\n').count();
                assert!((1..=9).contains(&lines), "seed {seed}: {}", file.path);
            }
        }
    }

    #[test]
    fn plan_is_deterministic() -> TestResult {
        for seed in [0, 1, 2, 4, 21, 34, 40, 51, 89, 103, 118, 144, 233, u32::MAX] {
            let first = serde_json::to_string(&plan(seed, "/r", &PlanOptions::default()))?;
            let second = serde_json::to_string(&plan(seed, "/r", &PlanOptions::default()))?;
            assert_eq!(first, second, "seed {seed}");
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn plan_never_panics_and_has_the_asked_size(
            seed in any::<u32>(),
            files in 0usize..40,
            calls in 0usize..40,
            root in "[a-z/]{0,8}",
        ) {
            let plan = plan(seed, &root, &PlanOptions { files, calls });
            let fixture = if files > 0 { IGNORE_FIXTURE.len() } else { 0 };
            prop_assert_eq!(plan.files.len(), files + fixture);
            prop_assert_eq!(plan.grep.len(), calls);
            prop_assert_eq!(plan.glob.len(), calls);
            prop_assert!(serde_json::to_string(&plan).is_ok());
        }
    }
}
