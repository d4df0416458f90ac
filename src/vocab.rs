//! The words of the contract: every value with a closed set of spellings (`new|modified|
//! unchanged`, `green|yellow|red`, stage names, flags such as `--mode full|blocks|outline`)
//! is one enum here, with its spelling, parsing, `Display`, serde and clap's `ValueEnum`.
//! Strings exist only at the edges: clap parses flags into these types, YAML and JSON
//! are written from [`as_str`](MethodMode::as_str), and what is read from a metadata or
//! config file is parsed with `parse` where it is used.
//!
//! Each enum lists its variants in the contract's order: `NAMES` joined with `, ` is the
//! list the validator's `must be one of:` messages print.

use std::fmt;

/// Defines a contract enum: `Variant = "spelling"` (optionally `: "help"` for the help
/// text clap prints next to a flag's possible values).
macro_rules! words {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(: $help:literal)? ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in the contract's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every spelling, in the contract's order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The contract's spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value spelled `text`, if it is one.
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownWord;
            fn from_str(text: &str) -> Result<Self, UnknownWord> {
                $name::parse(text).ok_or_else(|| UnknownWord {
                    got: text.to_string(),
                    expected: $name::NAMES,
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }

        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                $name::ALL
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match self {
                    $($name::$variant => clap::builder::PossibleValue::new($text) $(.help($help))?),+
                })
            }
        }
    };
}

/// A spelling that is not one of an enum's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWord {
    /// What was given.
    pub got: String,
    /// The spellings allowed.
    pub expected: &'static [&'static str],
}

impl fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} must be one of: {}",
            self.got,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownWord {}

words! {
    /// `method_mode`: how a method compares with its base version.
    pub enum MethodMode {
        /// Not in the base (every method of an added file).
        New = "new",
        /// Its own text changed, or a private method it absorbs did.
        Modified = "modified",
        /// Same as in the base.
        Unchanged = "unchanged",
    }
}

words! {
    /// A method's `type` in the contract.
    pub enum MethodType {
        /// `Class#name`.
        Instance = "instance",
        /// `Class.name` (a singleton method).
        Class = "class",
    }
}

words! {
    /// A file's complexity zone, by the worst of its LOC and method count.
    pub enum Zone {
        /// Below both yellow marks.
        Green = "green",
        /// At or above a yellow mark, not above a red one.
        Yellow = "yellow",
        /// Above a red mark.
        Red = "red",
    }
}

words! {
    /// `characteristics[].type`: the five characteristic types.
    pub enum CharType {
        /// Two values `true`/`false`.
        Boolean = "boolean",
        /// Two values `present`/`nil` (strings).
        Presence = "presence",
        /// Several named values.
        Enum = "enum",
        /// Numeric thresholds.
        Range = "range",
        /// Ordered states (a state machine).
        Sequential = "sequential",
    }
}

impl CharType {
    /// Binary types, for the validator's level >= 2 wording rule.
    pub fn is_binary(self, values: usize) -> bool {
        matches!(self, CharType::Boolean | CharType::Presence)
            || (self == CharType::Range && values == 2)
    }
}

words! {
    /// `characteristics[].source.kind`.
    pub enum SourceKind {
        /// The method's own logic or its inputs.
        Internal = "internal",
        /// The result of a call on another class.
        External = "external",
    }
}

words! {
    /// `characteristics[].setup.type`.
    pub enum SetupType {
        /// A persisted record (factory).
        Model = "model",
        /// A plain value or object.
        Data = "data",
        /// Something the test does (a call, a session, time).
        Action = "action",
    }
}

words! {
    /// `behaviors[].type`.
    pub enum BehaviorKind {
        /// A terminal value's outcome.
        Terminal = "terminal",
        /// A non-terminal leaf's outcome.
        Success = "success",
        /// A side effect.
        SideEffect = "side_effect",
    }
}

words! {
    /// `side_effects[].type` and `behaviors[].subtype`.
    pub enum SideEffectKind {
        /// Mail sent.
        Email = "email",
        /// A notification to another service.
        Webhook = "webhook",
        /// A cache written or cleared.
        Cache = "cache",
        /// An event published or a job enqueued.
        Event = "event",
        /// A call to an outside API.
        ExternalApi = "external_api",
    }
}

words! {
    /// `test_config.test_level`, and the answers to a low-confidence decision.
    pub enum TestLevel {
        /// One class, collaborators stubbed.
        Unit = "unit",
        /// Real collaborators and database.
        Integration = "integration",
        /// Through the Rails request stack.
        Request = "request",
    }
}

words! {
    /// `test_config.confidence`.
    pub enum Confidence {
        /// The table decided on clear facts.
        High = "high",
        /// Some facts were guessed.
        Medium = "medium",
        /// A person should decide (a `needs_decision`).
        Low = "low",
    }
}

words! {
    /// A `test_config.isolation` knob (`db`, `external_http`, `queue`).
    pub enum IsolationMode {
        /// The real thing.
        Real = "real",
        /// Stubbed in the spec.
        Stubbed = "stubbed",
        /// Not used.
        None = "none",
    }
}

words! {
    /// The pipeline stages `validate --stage` checks, as the command line spells them.
    pub enum Stage {
        /// After discovery: `source_file`, `class_name`, `spec_path`, `complexity`,
        /// `methods_to_analyze`.
        DiscoveryAgent = "discovery-agent",
        /// After code analysis: `slug`, `source_mtime`, the behavior bank, `methods[]` with
        /// characteristics and side effects.
        CodeAnalyzer = "code-analyzer",
        /// After the spec is written: `test_config` of every method, the spec file itself.
        SpecWriter = "spec-writer",
    }
}

words! {
    /// `project_type`: what kind of project the decision table assumes.
    pub enum ProjectType {
        /// A Rails application.
        Rails = "rails",
        /// Another web framework.
        Web = "web",
        /// A service without a web layer.
        Service = "service",
        /// A gem.
        Library = "library",
    }
}

words! {
    /// `rails.controllers.spec_policy`: which spec a Rails controller gets.
    pub enum ControllerPolicy {
        /// `spec/requests/...` (the default).
        Request = "request",
        /// `spec/controllers/...` (legacy controller specs).
        Controller = "controller",
        /// Ask when a legacy controller spec exists.
        Ask = "ask",
    }
}

words! {
    /// How controller specs are laid out: a [`ControllerPolicy`] once decided.
    #[derive(Default)]
    pub enum ControllerLayout {
        /// `spec/requests/{dir}/{name without _controller}_spec.rb` (the default).
        #[default]
        Request = "request",
        /// `spec/controllers/{rel}_spec.rb` (legacy controller specs).
        Controller = "controller",
    }
}

impl ControllerPolicy {
    /// The layout this policy gives when nobody is asked (`ask` writes request specs).
    pub fn layout(self) -> ControllerLayout {
        match self {
            ControllerPolicy::Controller => ControllerLayout::Controller,
            ControllerPolicy::Request | ControllerPolicy::Ask => ControllerLayout::Request,
        }
    }
}

words! {
    /// What to do with a legacy controller spec when request specs are written.
    pub enum LegacySpec {
        /// Leave it.
        Keep = "keep",
        /// Delete it.
        Delete = "delete",
    }
}

words! {
    /// The test framework specs are written for, when the project's own setup says
    /// another (`skeleton --test-framework`): rspec-scout writes RSpec only, so the one
    /// answer is to write RSpec anyway.
    pub enum TestFrameworkChoice {
        /// Write RSpec specs though the project tests with Minitest.
        Rspec = "rspec",
    }
}

words! {
    /// What to do with a method whose block already exists in the spec.
    pub enum ConflictAction {
        /// Stop with a decision (`new_method_conflict` or `hand_written_block`).
        Ask = "ask",
        /// Replace the block.
        Overwrite = "overwrite",
        /// Leave the block and add nothing.
        Skip = "skip",
        /// Leave the block and add the generated block right after it (hand-written blocks
        /// only: a generated block beside a generated block would describe the method twice).
        Beside = "beside",
    }
}

words! {
    /// What `skeleton --stdout` renders.
    #[derive(Default)]
    pub enum SkeletonMode {
        /// The whole spec file exactly as `skeleton` would write it: a new file with its
        /// helper's `require`, or the existing spec patched.
        Full = "full",
        /// The method blocks only, separated by one blank line (for patching a spec).
        #[default]
        Blocks = "blocks",
        /// `RSpec.describe` with describe/context/it lines only.
        Outline = "outline",
    }
}

words! {
    /// How `skeleton` writes the placeholders of a generated block.
    #[derive(Default)]
    pub enum Placeholders {
        /// `{COMMON_SETUP}`, `{SETUP_CODE}`, `{EXPECTATION}`, `{THRESHOLD_VALUE}` as the
        /// contract writes them, for the spec-writer agent to fill (the file is not Ruby
        /// until it does).
        #[default]
        Pipeline = "pipeline": "The contract's placeholders, for the spec-writer agent",
        /// Ruby that runs: setup placeholders become TODO comments, each example starts
        /// with `skip`, so the suite stays green with the example pending.
        Pending = "pending": "Ruby that runs: TODO comments and skipped (pending) examples",
    }
}

words! {
    /// Which view `outline` prints.
    pub enum OutlineView {
        /// The pipeline's outline: per method block, its describe/context/it lines.
        Methods = "methods",
        /// Every block of the file with its line range.
        Tree = "tree",
    }
}

words! {
    /// The output format of an answer.
    #[derive(Default)]
    pub enum Format {
        /// YAML (the default; what agents read).
        #[default]
        Yaml = "yaml": "YAML",
        /// JSON, one document.
        Json = "json": "JSON",
        /// Text for a person at a terminal.
        Text = "text": "Text for people",
    }
}

words! {
    /// How long runs report progress on stderr.
    #[derive(Default)]
    pub enum Progress {
        /// A bar when stderr is a terminal and the run has lasted half a second.
        #[default]
        Auto = "auto": "A bar on a terminal, after half a second",
        /// None.
        Never = "never": "No progress",
        /// JSON lines on stderr: start, every tenth done and finish of each phase.
        Json = "json": "JSON lines on stderr",
    }
}

words! {
    /// How large a printed answer may be (`--answer`).
    #[derive(Default)]
    pub enum AnswerSize {
        /// The whole answer, however large (what the library returns unless asked).
        #[default]
        Full = "full": "The whole answer, however large",
        /// Whole when it fits `answer_limit`; else compact, with the whole answer written to
        /// a file (the binary's default).
        Auto = "auto": "Whole within answer_limit, else compact with the whole answer in a file",
        /// Always compact, with the whole answer written to a file.
        Compact = "compact": "Always compact, the whole answer in a file",
    }
}

words! {
    /// Which files `discover` plans.
    pub enum DiscoverMode {
        /// Files that differ between the merge-base with the base ref and the working tree.
        Branch = "branch",
        /// The index against HEAD.
        Staged = "staged",
        /// The files and folders named.
        Single = "single",
        /// Every in-scope file.
        All = "all",
    }
}

words! {
    /// How a file changed.
    pub enum ChangeKind {
        /// New in the working tree or index (also untracked, not ignored).
        Added = "added",
        /// Changed content.
        Modified = "modified",
        /// Moved (and maybe changed); counts as modified under the new path.
        Renamed = "renamed",
        /// Gone from the working tree.
        Deleted = "deleted",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn spellings_round_trip_through_parse_serde_and_clap() {
        for mode in MethodMode::ALL {
            assert_eq!(MethodMode::parse(mode.as_str()), Some(*mode));
            assert_eq!(mode.to_string(), mode.as_str());
            let json = serde_json::to_string(mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
            assert_eq!(serde_json::from_str::<MethodMode>(&json).unwrap(), *mode);
            assert_eq!(
                <MethodMode as ValueEnum>::from_str(mode.as_str(), false).unwrap(),
                *mode,
                "clap"
            );
        }
        assert_eq!(
            "x".parse::<SideEffectKind>().unwrap_err().to_string(),
            "\"x\" must be one of: email, webhook, cache, event, external_api"
        );
        assert_eq!(
            Stage::NAMES.join(", "),
            "discovery-agent, code-analyzer, spec-writer"
        );
        assert_eq!(
            Format::Text
                .to_possible_value()
                .and_then(|v| v.get_help().map(ToString::to_string)),
            Some("Text for people".to_string())
        );
    }
}
