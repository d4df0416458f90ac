//! The rules between a command's arguments, defined once for both doors: the command line
//! applies them to its parser ([`crate::app::arg_rules::apply`] is called by `cli`) and the
//! MCP server checks a call's arguments with [`check`], so a call the command line refuses
//! is refused by the server too, with the same words for the tool's argument names.

use crate::error::{Error, Result};

/// One rule between two arguments (named as the command line's fields and the tools'
/// arguments are: `from_metadata`, `all_metadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgRule {
    /// The two cannot go together.
    Conflicts(&'static str, &'static str),
    /// The first needs the second.
    Requires(&'static str, &'static str),
    /// The first is needed unless the second is given.
    RequiredUnless(&'static str, &'static str),
}

/// What `on_new_conflict` takes: `beside` is only for a hand-written block.
pub const NEW_CONFLICT_ACTIONS: &[&str] = &["ask", "overwrite", "skip"];

/// What `on_hand_written` takes.
pub const HAND_WRITTEN_ACTIONS: &[&str] = &["ask", "beside", "overwrite", "skip"];

/// The rules of a command (by its command-line name).
pub fn rules(command: &str) -> &'static [ArgRule] {
    use ArgRule::{Conflicts, RequiredUnless, Requires};
    match command {
        "discover" => &[Conflicts("all", "staged"), Conflicts("staged", "paths")],
        "analyze" => &[
            Conflicts("from_metadata", "files"),
            RequiredUnless("files", "from_metadata"),
            Requires("all_metadata", "from_metadata"),
        ],
        "skeleton" => &[
            Conflicts("all_metadata", "metadata"),
            Requires("stdout", "metadata"),
            Requires("spec", "metadata"),
        ],
        "validate" => &[
            RequiredUnless("stage", "yaml"),
            Conflicts("yaml", "stage"),
            Requires("stdin", "yaml"),
        ],
        "test-config" => &[Conflicts("all_metadata", "metadata")],
        "status" => &[Conflicts("all_metadata", "paths")],
        _ => &[],
    }
}

/// Checks `command`'s rules on the arguments `given` says are present; the message names
/// each argument with `name` (`--all` on the command line, `all` for a tool).
pub fn check(
    command: &str,
    given: impl Fn(&str) -> bool,
    name: impl Fn(&str) -> String,
) -> Result<()> {
    for rule in rules(command) {
        let broken = match *rule {
            ArgRule::Conflicts(a, b) if given(a) && given(b) => Some(format!(
                "{} and {} cannot be used together",
                name(a),
                name(b)
            )),
            ArgRule::Requires(a, b) if given(a) && !given(b) => {
                Some(format!("{} needs {}", name(a), name(b)))
            }
            ArgRule::RequiredUnless(a, b) if !given(a) && !given(b) => Some(format!(
                "{} is required unless {} is given",
                name(a),
                name(b)
            )),
            _ => None,
        };
        if let Some(message) = broken {
            return Err(Error::Usage {
                message: format!("{command}: {message}"),
            });
        }
    }
    Ok(())
}

/// Applies every command's rules to the command line's parser.
pub fn apply(mut cli: clap::Command) -> clap::Command {
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for command in names {
        for rule in rules(&command) {
            cli = cli.mut_subcommand(&command, |sub| {
                let has = |id: &str| sub.get_arguments().any(|a| a.get_id() == id);
                match *rule {
                    ArgRule::Conflicts(a, b) if has(a) && has(b) => {
                        sub.mut_arg(a, |arg| arg.conflicts_with(b))
                    }
                    ArgRule::Requires(a, b) if has(a) && has(b) => {
                        sub.mut_arg(a, |arg| arg.requires(b))
                    }
                    ArgRule::RequiredUnless(a, b) if has(a) && has(b) => {
                        sub.mut_arg(a, |arg| arg.required_unless_present(b))
                    }
                    _ => sub,
                }
            });
        }
    }
    cli
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_rule_is_checked_with_the_callers_names() {
        let tool = |n: &str| format!("`{n}`");
        let given = |set: &'static [&'static str]| move |n: &str| set.contains(&n);
        let err = check("discover", given(&["all", "staged"]), tool).unwrap_err();
        assert_eq!(
            err.to_string(),
            "discover: `all` and `staged` cannot be used together"
        );
        let err = check("discover", given(&["staged", "paths"]), |n: &str| {
            format!("--{n}")
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "discover: --staged and --paths cannot be used together"
        );
        let err = check("validate", given(&["files"]), tool).unwrap_err();
        assert_eq!(
            err.to_string(),
            "validate: `stage` is required unless `yaml` is given"
        );
        let err = check("skeleton", given(&["stdout"]), tool).unwrap_err();
        assert_eq!(err.to_string(), "skeleton: `stdout` needs `metadata`");
        assert!(check("discover", given(&["all", "paths"]), tool).is_ok());
        assert!(check("validate", given(&["yaml", "files"]), tool).is_ok());
        assert!(check("outline", given(&["spec"]), tool).is_ok());
    }
}
