//! `rspec-scout symbols`.

use crate::util::Project;

#[test]
fn missing_path_is_an_error_with_code() {
    let p = Project::new();
    let run = p.run(&["symbols", "app/models/nope.rb"]).expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    status: error
    error: "path not found: app/models/nope.rb"
    details: app/models/nope.rb does not exist
    suggestion: check the path; paths are relative to the current directory
    error_code: SOURCE_NOT_FOUND
    recoverable: true
    "#);
}
