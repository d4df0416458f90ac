//! Request subjects from a routes table: each shape of route against the request a Rails
//! developer would write for it.

use super::*;

const ROUTES: &str = r#"Rails.application.routes.draw do
  root "dashboard#show"
  get "login", to: "sessions#new", as: :login
  match "/404", to: "errors#not_found", via: :all

  resources :projects, param: :slug do
    member do
      post :archive, as: nil
      get "settings(/:tab)", action: :settings, as: :settings
    end
    resources :watchers, only: [:create, :destroy]
    resources :tasks, shallow: true, only: [:index, :show]
  end

  resource :profile, only: [:show, :update]

  namespace :admin do
    resources :users, only: [:index, :show, :destroy] do
      post :impersonate, on: :member
    end
  end

  scope "(:locale)" do
    get "pricing", to: "pages#pricing"
  end
  get "/legacy/*path", to: "legacy#show", format: false
  get "/hooks/:provider/:request_id", to: "hooks#show", as: :hook

  get "search", to: "search#index"
  get "find", to: "search#index"
  post "search", to: "search#index"
  get "lookup", to: "search#index"
  get "query", to: "search#index"
end
"#;

fn requests() -> Requests {
    Requests::new(Routes::parse("config/routes.rb", ROUTES.as_bytes()))
}

/// The subject as the skeleton writes it: notes, subject, params.
fn shown(subject: Option<RequestSubject>) -> String {
    let Some(subject) = subject else {
        return "(unit form)\n".to_string();
    };
    let mut out = String::new();
    for note in &subject.notes {
        out.push_str(&format!("# {note}\n"));
    }
    out.push_str(&format!("subject(:{SUBJECT}) {{ {} }}\n", subject.call));
    if subject.params {
        out.push_str("let(:params) { {} }\n");
    }
    out
}

fn action(class: &str, name: &str) -> String {
    shown(requests().subject(class, name, None, &[]))
}

#[test]
fn resource_actions_use_their_path_helper_with_records_named_after_the_path() {
    let all: String = [
        ("ProjectsController", "index"),
        ("ProjectsController", "create"),
        ("ProjectsController", "show"),
        ("ProjectsController", "update"),
        ("WatchersController", "create"),
        ("WatchersController", "destroy"),
        ("TasksController", "index"),
        ("TasksController", "show"),
        ("ProfilesController", "update"),
        ("Admin::UsersController", "destroy"),
        ("Admin::UsersController", "impersonate"),
        ("DashboardController", "show"),
    ]
    .iter()
    .map(|(c, a)| format!("{c}#{a}\n{}", action(c, a)))
    .collect();
    assert_eq!(
        all,
        "\
ProjectsController#index
# GET /projects (config/routes.rb:6)
subject(:make_request) { get projects_path }
ProjectsController#create
# POST /projects (config/routes.rb:6)
subject(:make_request) { post projects_path, params: params }
let(:params) { {} }
ProjectsController#show
# GET /projects/:slug (config/routes.rb:6)
subject(:make_request) { get project_path(slug) }
ProjectsController#update
# PATCH /projects/:slug (config/routes.rb:6)
# PUT /projects/:slug (config/routes.rb:6)
subject(:make_request) { patch project_path(slug), params: params }
let(:params) { {} }
WatchersController#create
# POST /projects/:project_slug/watchers (config/routes.rb:11)
subject(:make_request) { post project_watchers_path(project), params: params }
let(:params) { {} }
WatchersController#destroy
# DELETE /projects/:project_slug/watchers/:id (config/routes.rb:11)
subject(:make_request) { delete project_watcher_path(project, watcher) }
TasksController#index
# GET /projects/:project_slug/tasks (config/routes.rb:12)
subject(:make_request) { get project_tasks_path(project) }
TasksController#show
# GET /tasks/:id (config/routes.rb:12)
subject(:make_request) { get task_path(task) }
ProfilesController#update
# PATCH /profile (config/routes.rb:15)
# PUT /profile (config/routes.rb:15)
subject(:make_request) { patch profile_path, params: params }
let(:params) { {} }
Admin::UsersController#destroy
# DELETE /admin/users/:id (config/routes.rb:18)
subject(:make_request) { delete admin_user_path(user) }
Admin::UsersController#impersonate
# POST /admin/users/:id/impersonate (config/routes.rb:19)
subject(:make_request) { post impersonate_admin_user_path(user), params: params }
let(:params) { {} }
DashboardController#show
# GET / (config/routes.rb:2)
subject(:make_request) { get root_path }
"
    );
}

#[test]
fn unnamed_routes_are_strings_and_optional_groups_are_left_out() {
    let all: String = [
        ("ProjectsController", "archive"),
        ("ProjectsController", "settings"),
        ("PagesController", "pricing"),
        ("LegacyController", "show"),
        ("ErrorsController", "not_found"),
        ("HooksController", "show"),
    ]
    .iter()
    .map(|(c, a)| format!("{c}#{a}\n{}", action(c, a)))
    .collect();
    assert_eq!(
        all,
        "\
ProjectsController#archive
# POST /projects/:slug/archive (config/routes.rb:8)
subject(:make_request) { post \"/projects/#{slug}/archive\", params: params }
let(:params) { {} }
ProjectsController#settings
# GET /projects/:slug/settings(/:tab) (config/routes.rb:9)
subject(:make_request) { get settings_project_path(slug) }
PagesController#pricing
# GET (/:locale)/pricing (config/routes.rb:24)
subject(:make_request) { get pricing_path }
LegacyController#show
# GET /legacy/*path (config/routes.rb:26)
subject(:make_request) { get \"/legacy/#{path}\" }
ErrorsController#not_found
# ANY /404 (config/routes.rb:4)
subject(:make_request) { get '/404' }
HooksController#show
# GET /hooks/:provider/:request_id (config/routes.rb:27)
subject(:make_request) { get hook_path(provider, request_record) }
"
    );
}

#[test]
fn many_routes_are_listed_up_to_three_and_the_first_is_requested() {
    assert_eq!(
        action("SearchController", "index"),
        "\
# GET /search (config/routes.rb:29)
# GET /find (config/routes.rb:30)
# POST /search (config/routes.rb:31)
# and 2 more routes to this action
subject(:make_request) { get search_path }
"
    );
}

#[test]
fn filters_and_handlers_go_through_a_routed_action_they_apply_to() {
    let r = requests();
    let filter = |name: &str, trigger: &str| {
        shown(r.subject("Admin::UsersController", name, Some(trigger), &[]))
    };
    assert_eq!(
        filter("require_admin", "before_action"),
        "\
# Runs as before_action: exercised through a request to #impersonate, not called directly.
# POST /admin/users/:id/impersonate (config/routes.rb:19)
subject(:make_request) { post impersonate_admin_user_path(user), params: params }
let(:params) { {} }
"
    );
    assert_eq!(
        filter("set_user", "before_action (only: show, destroy)"),
        "\
# Runs as before_action (only: show, destroy): exercised through a request to #show, not called directly.
# GET /admin/users/:id (config/routes.rb:18)
subject(:make_request) { get admin_user_path(user) }
"
    );
    assert_eq!(
        filter("audit", "after_action (except: impersonate, index)"),
        "\
# Runs as after_action (except: impersonate, index): exercised through a request to #show, not called directly.
# GET /admin/users/:id (config/routes.rb:18)
subject(:make_request) { get admin_user_path(user) }
"
    );
    assert_eq!(
        filter("not_found", "rescue_from ActiveRecord::RecordNotFound"),
        "\
# Runs as rescue_from ActiveRecord::RecordNotFound: exercised through a request to #impersonate that raises it, not called directly.
# POST /admin/users/:id/impersonate (config/routes.rb:19)
subject(:make_request) { post impersonate_admin_user_path(user), params: params }
let(:params) { {} }
"
    );
    assert_eq!(
        filter("set_user", "before_action (only: edit)"),
        "\
# Runs as before_action (only: edit), but no route in config/routes.rb reaches an action of Admin::UsersController it applies to: write the request that runs it.
subject(:make_request) { {REQUEST} }
"
    );
}

#[test]
fn a_skipped_filter_is_not_exercised_through_the_actions_that_skip_it() {
    let source = "module Admin\n  class UsersController < ApplicationController\n    before_action :require_admin\n    skip_before_action :require_admin, only: %i[impersonate index]\n    skip_before_action :require_login, except: :show\n  end\nend\n";
    let r = requests().skipping(
        "app/controllers/admin/users_controller.rb",
        source.as_bytes(),
        "Admin::UsersController",
    );
    assert_eq!(
        shown(r.subject(
            "Admin::UsersController",
            "require_admin",
            Some("before_action"),
            &[]
        )),
        "\
# Runs as before_action: exercised through a request to #show, not called directly.
# GET /admin/users/:id (config/routes.rb:18)
subject(:make_request) { get admin_user_path(user) }
"
    );
    // Skipped everywhere but `show`: the filter still runs there.
    assert!(shown(r.subject(
        "Admin::UsersController",
        "require_login",
        Some("before_action"),
        &[]
    ))
    .contains("request to #show,"));
}

#[test]
fn without_a_route_the_request_is_a_placeholder_with_the_reason() {
    let r = requests();
    assert_eq!(
        shown(r.subject("ProjectsController", "export", None, &[])),
        "\
# No route in config/routes.rb reaches projects#export: write the request of the action that runs it.
subject(:make_request) { {REQUEST} }
"
    );
    assert_eq!(
        shown(r.subject("ApplicationController", "back_url", None, &[])),
        "\
# No route in config/routes.rb reaches ApplicationController itself: exercise #back_url through a request to an action of a controller that inherits it.
subject(:make_request) { {REQUEST} }
"
    );
    assert_eq!(
        shown(r.subject("ApplicationController", "require_login", Some("before_action"), &[])),
        "\
# Runs as before_action. No route in config/routes.rb reaches ApplicationController itself: write a request to an action of a controller that inherits it.
subject(:make_request) { {REQUEST} }
"
    );
}

#[test]
fn classes_that_are_not_controllers_and_model_callbacks_keep_the_unit_form() {
    let r = requests();
    assert_eq!(
        shown(r.subject("Project", "archive", None, &[])),
        "(unit form)\n"
    );
    assert_eq!(
        shown(r.subject("Controller", "show", None, &[])),
        "(unit form)\n"
    );
    assert_eq!(
        shown(r.subject(
            "ProjectsController",
            "touch_project",
            Some("after_save"),
            &[]
        )),
        "(unit form)\n"
    );
}

fn literal_(path: &str) -> String {
    literal(path, &[])
}

#[test]
fn path_pieces() {
    assert_eq!(
        required_part("/projects/:id/settings(/:tab)"),
        "/projects/:id/settings"
    );
    assert_eq!(required_part("(/:locale)"), "/");
    assert_eq!(required_part("(/:locale)/a(/b(/:c))"), "/a");
    assert_eq!(literal_("/"), "'/'");
    assert_eq!(literal_("/it's"), "'/it\\'s'");
    assert_eq!(
        literal_("/categories/:category_id/files/:name.:ext"),
        "\"/categories/#{category.id}/files/#{name}.#{ext}\""
    );
    assert_eq!(literal_("/a\"b/:id"), "\"/a\\\"b/#{id.id}\"");
    assert!(local_name("project") && !local_name("end") && !local_name("Project"));
}

#[test]
fn arguments_named_like_a_characteristic_are_renamed() {
    let r = requests();
    let lets = ["project".to_string(), "slug".to_string()];
    assert_eq!(
        shown(r.subject("WatchersController", "destroy", None, &lets)),
        "\
# DELETE /projects/:project_slug/watchers/:id (config/routes.rb:11)
subject(:make_request) { delete project_watcher_path(project_record, watcher) }
"
    );
    assert_eq!(
        shown(r.subject("ProjectsController", "archive", None, &lets)),
        "\
# POST /projects/:slug/archive (config/routes.rb:8)
subject(:make_request) { post \"/projects/#{slug_value}/archive\", params: params }
let(:params) { {} }
"
    );
    assert_eq!(
        literal("/projects/:project_slug/files", &lets),
        "\"/projects/#{project_record.slug}/files\""
    );
}

#[test]
fn the_simplest_route_of_an_action_is_requested_and_all_are_listed() {
    let routes = "Rails.application.routes.draw do\n  resources :projects do\n    get 'issues/:copy_from/copy', to: 'issues#new', as: 'copy_issue'\n    resources :issues, only: [:index, :new]\n  end\n  resources :issues, only: :index\nend\n";
    let r = Requests::new(Routes::parse("config/routes.rb", routes.as_bytes()));
    assert_eq!(
        shown(r.subject("IssuesController", "new", None, &[])),
        "\
# GET /projects/:project_id/issues/:copy_from/copy (config/routes.rb:3)
# GET /projects/:project_id/issues/new (config/routes.rb:4)
subject(:make_request) { get new_project_issue_path(project) }
"
    );
    assert_eq!(
        shown(r.subject("IssuesController", "index", None, &[])),
        "\
# GET /projects/:project_id/issues (config/routes.rb:4)
# GET /issues (config/routes.rb:6)
subject(:make_request) { get issues_path }
"
    );
}
