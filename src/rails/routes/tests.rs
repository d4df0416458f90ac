//! Tests of the routes reader: each construct of the routing DSL against the routes Rails
//! makes of it, bad input, and (ignored, for development) the table and coverage of real apps.

use super::*;

/// The table as `rails routes` lists it, one route a line: verb, path, controller#action,
/// name, file:line.
fn table(routes: &Routes) -> String {
    let mut out = String::new();
    for r in routes.routes() {
        out.push_str(&format!(
            "{:<7} {} {}#{} {} {}:{}\n",
            r.verb.as_str(),
            r.path,
            r.controller,
            r.action,
            r.name.as_deref().unwrap_or("-"),
            r.file,
            r.line
        ));
    }
    for d in routes.diagnostics() {
        out.push_str(&format!("! {d}\n"));
    }
    out
}

fn fixture_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/routes_app")
}

/// A realistic routes file (and the file it draws), the whole table reviewed line by line
/// against the Rails routing guide and `mapper.rb`.
#[test]
fn project_tracker_routes_table() {
    insta::assert_snapshot!(table(&Routes::load(&fixture_root())));
}

/// The routes of a draw block holding `body`, as a table without file names.
fn routes_of(body: &str) -> String {
    let src = format!("Rails.application.routes.draw do\n{body}end\n");
    table(&Routes::parse("config/routes.rb", src.as_bytes()))
        .lines()
        .map(|l| {
            let l = if l.starts_with('!') {
                l.to_string()
            } else {
                l.replace(" config/routes.rb:", " :")
            };
            l + "\n"
        })
        .collect()
}

#[test]
fn resources_make_seven_actions_in_rails_order_with_patch_before_put() {
    assert_eq!(
        routes_of("  resources :photos\n"),
        "\
GET     /photos photos#index photos :2
POST    /photos photos#create photos :2
GET     /photos/new photos#new new_photo :2
GET     /photos/:id/edit photos#edit edit_photo :2
GET     /photos/:id photos#show photo :2
PATCH   /photos/:id photos#update photo :2
PUT     /photos/:id photos#update photo :2
DELETE  /photos/:id photos#destroy photo :2
"
    );
}

#[test]
fn only_and_except_in_every_spelling() {
    assert_eq!(
        routes_of(
            "  resources :albums, only: :show\n  resources :tracks, only: \"index\"\n  resources :playlists, only: %i[new create]\n  resources :artists, except: [:index, \"new\", :edit, :update, :destroy]\n  resources :genres, only: []\n  resources :labels, only: %w[destroy], except: :destroy\n"
        ),
        "\
GET     /albums/:id albums#show album :2
GET     /tracks tracks#index tracks :3
POST    /playlists playlists#create playlists :4
GET     /playlists/new playlists#new new_playlist :4
POST    /artists artists#create artists :5
GET     /artists/:id artists#show artist :5
"
    );
}

#[test]
fn resource_options_controller_path_as_param_module() {
    assert_eq!(
        routes_of(
            "  resources :photos, controller: \"images\", only: :index\n  resources :posts, path: \"articles\", only: :show\n  resources :photographs, as: \"pics\", only: [:index, :new]\n  resources :users, param: :login, only: :show\n  resources :reports, module: :admin, only: :index\n  resources :hooks, controller: \"/integrations/hooks\", module: :api, only: :index\n"
        ),
        "\
GET     /photos images#index photos :2
GET     /articles/:id posts#show post :3
GET     /photographs photographs#index pics :4
GET     /photographs/new photographs#new new_pic :4
GET     /users/:login users#show user :5
GET     /reports admin/reports#index reports :6
GET     /hooks integrations/hooks#index hooks :7
"
    );
}

#[test]
fn singular_resource_routes_to_the_plural_controller_without_index_or_id() {
    assert_eq!(
        routes_of("  resource :profile\n  resource :geocoder, controller: \"geo\", only: [:show, :create]\n"),
        "\
GET     /profile/new profiles#new new_profile :2
GET     /profile/edit profiles#edit edit_profile :2
GET     /profile profiles#show profile :2
PATCH   /profile profiles#update profile :2
PUT     /profile profiles#update profile :2
DELETE  /profile profiles#destroy profile :2
POST    /profile profiles#create profile :2
GET     /geocoder geo#show geocoder :3
POST    /geocoder geo#create geocoder :3
"
    );
}

#[test]
fn nested_resources_and_member_collection_new_blocks() {
    assert_eq!(
        routes_of(
            "  resources :magazines, only: [] do
    resources :ads, only: [:index, :show]
    member do
      get 'preview'
      patch :publish
    end
    collection do
      get :search
    end
    new do
      post :preview
    end
    get :archive, on: :collection
    post :star, on: :member
    get 'stats'
    get 'issues/latest', to: 'issues#latest'
    resource :cover, only: :show do
      get :thumbnail
    end
  end
"
        ),
        "\
GET     /magazines/:magazine_id/ads ads#index magazine_ads :3
GET     /magazines/:magazine_id/ads/:id ads#show magazine_ad :3
GET     /magazines/:id/preview magazines#preview preview_magazine :5
PATCH   /magazines/:id/publish magazines#publish publish_magazine :6
GET     /magazines/search magazines#search search_magazines :9
POST    /magazines/new/preview magazines#preview preview_new_magazine :12
GET     /magazines/archive magazines#archive archive_magazines :14
POST    /magazines/:id/star magazines#star star_magazine :15
GET     /magazines/:magazine_id/stats magazines#stats magazine_stats :16
GET     /magazines/:magazine_id/issues/latest issues#latest magazine_issues_latest :17
GET     /magazines/:magazine_id/cover/thumbnail covers#thumbnail thumbnail_magazine_cover :19
GET     /magazines/:magazine_id/cover covers#show magazine_cover :18
"
    );
}

#[test]
fn nested_params_follow_activesupport_singulars() {
    assert_eq!(
        routes_of(
            "  resources :people, only: [] do\n    resources :addresses, only: :index\n  end\n  resources :news, only: [] do\n    resources :categories, only: :index do\n      resources :entries, only: :index\n    end\n  end\n"
        ),
        "\
GET     /people/:person_id/addresses addresses#index person_addresses :3
GET     /news/:news_id/categories/:category_id/entries entries#index news_category_entries :7
GET     /news/:news_id/categories categories#index news_categories :6
"
    );
}

#[test]
fn shallow_nesting_in_its_three_spellings() {
    // `shallow: true` on the parent, a `shallow do` block, and `shallow: true` on the child;
    // a grandchild of a shallow parent nests under its own parent only.
    assert_eq!(
        routes_of(
            "  resources :articles, shallow: true, only: [] do
    resources :comments, only: [:index, :show] do
      resources :votes, only: [:index, :destroy]
    end
  end
  resources :boards, only: [] do
    shallow do
      resources :topics, only: [:create, :edit]
    end
    resources :pins, shallow: true, only: [:new, :update]
  end
  namespace :admin do
    resources :forums, shallow: true, only: [] do
      resources :posts, only: [:index, :show]
    end
  end
"
        ),
        "\
GET     /comments/:comment_id/votes votes#index comment_votes :4
DELETE  /votes/:id votes#destroy vote :4
GET     /articles/:article_id/comments comments#index article_comments :3
GET     /comments/:id comments#show comment :3
POST    /boards/:board_id/topics topics#create board_topics :9
GET     /topics/:id/edit topics#edit edit_topic :9
GET     /boards/:board_id/pins/new pins#new new_board_pin :11
PATCH   /pins/:id pins#update pin :11
PUT     /pins/:id pins#update pin :11
GET     /admin/forums/:forum_id/posts admin/posts#index admin_forum_posts :15
GET     /admin/posts/:id admin/posts#show admin_post :15
"
    );
}

#[test]
fn shallow_false_on_a_child_turns_it_off() {
    assert_eq!(
        routes_of(
            "  resources :articles, shallow: true, only: [] do\n    resources :drafts, shallow: false, only: :show\n  end\n"
        ),
        "GET     /articles/:article_id/drafts/:id drafts#show article_draft :3\n"
    );
}

#[test]
fn namespace_and_scope_in_all_their_forms() {
    assert_eq!(
        routes_of(
            "  namespace :admin do
    resources :users, only: :index
    namespace :billing, path: 'money', module: 'finance', as: 'cash' do
      get 'summary', to: 'reports#summary'
    end
  end
  scope '/x' do
    get 'a', to: 'pages#a'
  end
  scope path: '/y', as: 'why' do
    get 'b', to: 'pages#b'
  end
  scope module: 'legacy' do
    get 'c', to: 'pages#c'
  end
  scope as: 'sekret' do
    resources :posts, only: :index
  end
  scope ':account_id', as: 'account' do
    resources :projects, only: :show
  end
  scope(path: 'api', module: :api, as: :api) do
    scope :v2, module: :v2 do
      get 'status', to: 'status#show'
    end
  end
"
        ),
        "\
GET     /admin/users admin/users#index admin_users :3
GET     /admin/money/summary admin/finance/reports#summary admin_cash_summary :5
GET     /x/a pages#a a :9
GET     /y/b pages#b why_b :12
GET     /c legacy/pages#c c :15
GET     /posts posts#index sekret_posts :18
GET     /:account_id/projects/:id projects#show account_project :21
GET     /api/v2/status api/v2/status#show api_status :25
"
    );
}

#[test]
fn controller_scopes_name_the_controller_and_paths_name_the_action() {
    assert_eq!(
        routes_of(
            "  controller :sessions do\n    get 'login' => :new\n    get 'sign-out'\n    post 'login', action: :create\n  end\n  scope controller: :pages, path: 'p' do\n    get 'about-us'\n  end\n"
        ),
        "\
GET     /login sessions#new login :3
GET     /sign-out sessions#sign_out sign_out :4
POST    /login sessions#create login :5
GET     /p/about-us pages#about_us about_us :8
"
    );
}

#[test]
fn verb_helpers_hash_rockets_match_and_root() {
    assert_eq!(
        routes_of(
            "  root 'home#index'
  get 'about', to: 'pages#about'
  post 'contact' => 'messages#create'
  patch 'settings', :to => 'settings#update', :as => 'update_settings'
  put 'avatar', controller: 'avatars', action: 'replace'
  delete 'session' => 'sessions#destroy', via: :post
  match 'search', to: 'search#index', via: :get
  match 'feedback', to: 'feedback#create', via: [:get, 'POST']
  match 'ping', to: 'health#ping', via: :all
  match 'nowhere', to: 'health#nowhere'
  get 'photos/search'
  get 'orphan'
  options 'cors', to: 'cors#preflight'
  namespace :admin do
    root to: 'dashboard#show'
  end
  scope 'blog', as: 'blog' do
    root :to => 'posts#index'
  end
"
        ),
        "\
GET     / home#index root :2
GET     /about pages#about about :3
POST    /contact messages#create contact :4
PATCH   /settings settings#update update_settings :5
PUT     /avatar avatars#replace avatar :6
DELETE  /session sessions#destroy session :7
GET     /search search#index search :8
GET     /feedback feedback#create feedback :9
POST    /feedback feedback#create feedback :9
ANY     /ping health#ping ping :10
GET     /photos/search photos#search photos_search :12
OPTIONS /cors cors#preflight cors :14
GET     /admin admin/dashboard#show admin_root :16
GET     /blog posts#index blog_root :19
! config/routes.rb:11: `match` without `via:` (an error in Rails); not read
! config/routes.rb:13: route `/orphan` names no controller or action; not read
"
    );
}

#[test]
fn request_constraints_defaults_and_with_options_change_no_path() {
    assert_eq!(
        routes_of(
            "  constraints subdomain: 'api' do
    get 'ping', to: 'health#ping'
  end
  constraints(AdminConstraint.new) { get 'jobs', to: 'jobs#index' }
  constraints(->(req) { req.ssl? }) do
    resources :cards, only: :show, constraints: { id: /\\d+/ }
  end
  defaults format: :json do
    get 'feed', to: 'feeds#show'
  end
  with_options controller: 'wizard' do |wizard|
    wizard.get 'step1', action: :one
    wizard.get 'step2', action: :two, controller: 'other'
    get 'outside', to: 'pages#outside'
  end
  with_options only: :index do
    resources :tags
    resources :labels, only: :show
  end
"
        ),
        "\
GET     /ping health#ping ping :3
GET     /jobs jobs#index jobs :5
GET     /cards/:id cards#show card :7
GET     /feed feeds#show feed :10
GET     /step1 wizard#one step1 :13
GET     /step2 other#two step2 :14
GET     /outside pages#outside outside :15
GET     /tags tags#index tags :18
GET     /labels/:id labels#show label :19
"
    );
}

#[test]
fn concerns_by_option_by_call_with_options_and_unknown() {
    assert_eq!(
        routes_of(
            "  concern :commentable do
    resources :comments, only: :index
  end
  concern :image_attachable do |options|
    resources :images, options
  end
  resources :messages, only: :show, concerns: [:commentable, :image_attachable]
  resources :posts, only: [] do
    concerns :image_attachable, only: :create
  end
  namespace :blog do
    concerns :commentable
  end
  concerns :missing
  concern :callable, Purchasable.new
"
        ),
        "\
GET     /messages/:message_id/comments comments#index message_comments :3
GET     /messages/:message_id/images images#index message_images :6
POST    /messages/:message_id/images images#create message_images :6
GET     /messages/:message_id/images/new images#new new_message_image :6
GET     /messages/:message_id/images/:id/edit images#edit edit_message_image :6
GET     /messages/:message_id/images/:id images#show message_image :6
PATCH   /messages/:message_id/images/:id images#update message_image :6
PUT     /messages/:message_id/images/:id images#update message_image :6
DELETE  /messages/:message_id/images/:id images#destroy message_image :6
GET     /messages/:id messages#show message :8
POST    /posts/:post_id/images images#create post_images :6
GET     /blog/comments blog/comments#index blog_comments :3
! config/routes.rb:15: no concern named `missing` (an error in Rails); not read
! config/routes.rb:16: concern `callable` is an object, not a block; its routes are not read
"
    );
}

#[test]
fn paths_join_with_single_slashes_and_keep_segments_but_not_the_format() {
    assert_eq!(
        routes_of(
            "  scope '/v1/' do
    get '//files/*path(.:format)', to: 'files#show'
    get 'photos/:id(.:format)', to: 'photos#show'
    get 'pages(/:section)(/:page)', to: 'pages#show'
    get 'export.:format', to: 'exports#show'
    get '/', to: 'home#index'
  end
  scope '(:locale)' do
    get 'about', to: 'pages#about'
  end
  get '(:locale)', to: 'home#index', as: :localized_root
  get 'users/(:status)', to: 'users#index'
"
        ),
        "\
GET     /v1/files/*path files#show - :3
GET     /v1/photos/:id photos#show - :4
GET     /v1/pages(/:section)(/:page) pages#show - :5
GET     /v1/export.:format exports#show - :6
GET     /v1 home#index - :7
GET     (/:locale)/about pages#about about :10
GET     /(:locale) home#index localized_root :12
GET     /users(/:status) users#index - :13
"
    );
}

#[test]
fn loops_over_literal_lists_run_once_per_element() {
    assert_eq!(
        routes_of(
            "  %w[terms privacy].each do |page|
    get page, to: \"pages##{page}\"
  end
  [:photos, :videos].each { |kind| resources kind, only: :index }
  %i[daily weekly].each do |period|
    get \"reports/#{period}\", controller: :reports, action: period
  end
  SECTIONS.each { |s| get s, to: 'sections#show' }
  Plugin.all.each { |p| mount p.engine, at: p.path }
  names = %w[alpha beta]
  names.each { |n| get \"teams/#{n}\", to: \"teams#show\" }
  %w[a b].each { |x| get \"#{x}/#{helper_for(x)}\", to: 'x#y' }
"
        ),
        "\
GET     /terms pages#terms terms :3
GET     /privacy pages#privacy privacy :3
GET     /photos photos#index photos :5
GET     /videos videos#index videos :5
GET     /reports/daily reports#daily reports_daily :7
GET     /reports/weekly reports#weekly reports_weekly :7
GET     /teams/alpha teams#show teams_alpha :12
GET     /teams/beta teams#show teams_beta :12
! config/routes.rb:9: loop over `SECTIONS`, a value known only at runtime, not followed
! config/routes.rb:10: loop over `Plugin.all`, a value known only at runtime, not followed
! config/routes.rb:13: route path is a string built at runtime; not read
! config/routes.rb:13: route path is a string built at runtime; not read
"
    );
}

#[test]
fn constants_of_the_routes_file_can_be_looped_over() {
    let src = "ADMIN_RESOURCES = %i[users teams].freeze\nPAGES = %w[faq]\n\nRails.application.routes.draw do\n  PAGES.each { |p| get p, to: \"pages##{p}\" }\nend\n";
    assert_eq!(
        table(&Routes::parse("config/routes.rb", src.as_bytes())),
        "GET     /faq pages#faq faq config/routes.rb:5\n"
    );
}

#[test]
fn rack_endpoints_and_url_helpers_are_skipped_silently() {
    assert_eq!(
        routes_of(
            "  mount Sidekiq::Web => '/sidekiq'
  mount ActionCable.server, at: '/cable'
  get '/old', to: redirect('/new')
  get '/older' => redirect { |params, req| '/new' }
  get '/health', to: ->(env) { [200, {}, ['ok']] }
  get '/rack', to: MyRackApp
  match '/proxy', to: ProxyApp.new, via: :all
  direct(:homepage) { 'https://example.com' }
  resolve('Basket') { [:basket] }
  default_url_options host: 'example.com'
  get '/kept', to: 'pages#kept'
"
        ),
        "GET     /kept pages#kept kept :12\n"
    );
}

#[test]
fn runtime_values_are_never_guessed() {
    assert_eq!(
        routes_of(
            "  get 'a', to: \"#{CONTROLLER}#show\"
  get 'b', to: Settings.home_action
  get path_for(:c), to: 'c#c'
  resources resource_name
  namespace prefix do
    get 'd', to: 'd#d'
  end
  scope Rails.env do
    get 'e', to: 'e#e'
  end
  get 'f', to: 'f#f', controller: nil
  get ':controller/:action'
  match ':controller(/:action(/:id))', via: :get
  get 'g', to: 'Admin::Users#show'
"
        ),
        "\
GET     /f f#f f :12
! config/routes.rb:2: `to:` is a string built at runtime; not read
! config/routes.rb:3: `to:` is the result of `home_action`, known only at runtime; not read
! config/routes.rb:4: route path is the result of `path_for`, known only at runtime; not read
! config/routes.rb:5: `resources` of the result of `resource_name`, known only at runtime; not read
! config/routes.rb:6: `namespace` with a name known only at runtime; its routes are not read
! config/routes.rb:9: `scope` path is the result of `env`, known only at runtime; its routes are not read
! config/routes.rb:13: old-style route `/:controller/:action` takes its controller or action from the URL; not read
! config/routes.rb:14: old-style route `/:controller(/:action(/:id))` takes its controller or action from the URL; not read
! config/routes.rb:15: `Admin::Users` is not a controller path (an error in Rails); not read
"
    );
}

/// An app folder with the given files.
fn app(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn draw_reads_config_routes_files_in_the_current_scope() {
    let dir = app(&[
        (
            "config/routes.rb",
            "Rails.application.routes.draw do\n  draw :public\n  namespace :admin do\n    draw(:admin)\n  end\n  draw 'api/v1'\n  draw :missing\n  draw '../secrets'\n  draw :loop\nend\n",
        ),
        ("config/routes/public.rb", "get 'about', to: 'pages#about'\n"),
        ("config/routes/admin.rb", "resources :users, only: :index\n"),
        ("config/routes/api/v1.rb", "get 'status', to: 'status#show'\n"),
        ("config/routes/loop.rb", "get 'once', to: 'loops#once'\ndraw :loop\n"),
    ]);
    assert_eq!(
        table(&Routes::load(dir.path())),
        "\
GET     /about pages#about about config/routes/public.rb:1
GET     /admin/users admin/users#index admin_users config/routes/admin.rb:1
GET     /status status#show status config/routes/api/v1.rb:1
GET     /once loops#once once config/routes/loop.rb:1
! config/routes.rb:7: `draw` of config/routes/missing.rb: cannot read: file not found
! config/routes.rb:8: `draw \"../secrets\"` names no file under config/routes; not read
! config/routes/loop.rb:2: config/routes/loop.rb draws itself; not read again
"
    );
}

#[test]
fn draw_is_not_followed_by_parse() {
    assert_eq!(
        routes_of("  draw :admin\n"),
        "! config/routes.rb:2: `draw` of config/routes/admin.rb not followed (only `Routes::load` reads other files)\n"
    );
}

#[test]
fn a_missing_routes_file_is_an_empty_table_without_diagnostics() {
    let dir = app(&[(
        "app/controllers/pages_controller.rb",
        "class PagesController; end\n",
    )]);
    let routes = Routes::load(dir.path());
    assert_eq!(routes.routes(), &[] as &[Route]);
    assert_eq!(routes.diagnostics(), &[] as &[String]);
}

#[test]
fn an_unreadable_routes_file_is_a_diagnostic() {
    let dir = app(&[]);
    std::fs::create_dir_all(dir.path().join("config/routes.rb")).unwrap();
    let routes = Routes::load(dir.path());
    assert_eq!(routes.routes(), &[] as &[Route]);
    assert_eq!(
        routes.diagnostics(),
        ["config/routes.rb: cannot read: is a directory"]
    );
}

#[test]
fn api_only_apps_have_no_new_or_edit() {
    let routes = "Rails.application.routes.draw do\n  resources :posts\n  resource :account\nend\n";
    let dir = app(&[
        ("config/routes.rb", routes),
        (
            "config/application.rb",
            "module Blog\n  class Application < Rails::Application\n    config.api_only = true\n  end\nend\n",
        ),
    ]);
    assert_eq!(
        table(&Routes::load(dir.path())),
        "\
GET     /posts posts#index posts config/routes.rb:2
POST    /posts posts#create posts config/routes.rb:2
GET     /posts/:id posts#show post config/routes.rb:2
PATCH   /posts/:id posts#update post config/routes.rb:2
PUT     /posts/:id posts#update post config/routes.rb:2
DELETE  /posts/:id posts#destroy post config/routes.rb:2
GET     /account accounts#show account config/routes.rb:3
PATCH   /account accounts#update account config/routes.rb:3
PUT     /account accounts#update account config/routes.rb:3
DELETE  /account accounts#destroy account config/routes.rb:3
POST    /account accounts#create account config/routes.rb:3
"
    );
    assert!(!api_only(b"    # config.api_only = true\n"));
    assert!(api_only(b"config.api_only=true # JSON only\n"));
}

#[test]
fn a_syntax_error_keeps_the_routes_prism_recovered() {
    let src = "Rails.application.routes.draw do\n  resources :posts, only: :index\n  get 'broken' => )\n  get 'after', to: 'pages#after'\nend\n";
    let routes = Routes::parse("config/routes.rb", src.as_bytes());
    let lines: Vec<String> = routes
        .routes()
        .iter()
        .map(|r| {
            format!(
                "{} {} {}#{}",
                r.verb.as_str(),
                r.path,
                r.controller,
                r.action
            )
        })
        .collect();
    assert_eq!(lines, ["GET /posts posts#index", "GET /after pages#after"]);
    assert_eq!(
        routes.diagnostics(),
        [
            "config/routes.rb:3: syntax error: unexpected ')'; expected a value in the hash literal; routes were read from what parsed",
            "config/routes.rb:3: syntax error: unexpected ')', expecting end-of-input; routes were read from what parsed",
            "config/routes.rb:3: syntax error: unexpected ')', ignoring it; routes were read from what parsed",
            "config/routes.rb:3: `to:` is broken syntax; not read",
        ]
    );
}

#[test]
fn binary_empty_and_non_utf8_files() {
    let binary = Routes::parse("config/routes.rb", b"\x00\x01\x02resources :x");
    assert_eq!(binary.routes(), &[] as &[Route]);
    assert_eq!(
        binary.diagnostics(),
        ["config/routes.rb:1: binary file (contains NUL bytes); no routes read"]
    );

    let empty = Routes::parse("config/routes.rb", b"");
    assert_eq!((empty.routes().len(), empty.diagnostics().len()), (0, 0));

    let latin1 = Routes::parse(
        "config/routes.rb",
        b"Rails.application.routes.draw do\n  get 'caf\xe9', to: 'pages#cafe'\nend\n",
    );
    assert_eq!(
        latin1
            .routes()
            .iter()
            .map(|r| r.path.as_str())
            .collect::<Vec<_>>(),
        ["/caf\u{fffd}"]
    );
}

#[test]
fn a_huge_routes_file_is_read_whole() {
    let mut src = String::from("Rails.application.routes.draw do\n");
    for i in 0..20_000 {
        src.push_str(&format!("  get \"/page{i}\" => \"pages#page{i}\"\n"));
    }
    src.push_str("end\n");
    let routes = Routes::parse("config/routes.rb", src.as_bytes());
    assert_eq!(routes.routes().len(), 20_000);
    assert_eq!(routes.diagnostics().len(), 0);
    let last = routes.lookup("pages", "page19999");
    assert_eq!(
        last.iter()
            .map(|r| (r.path.as_str(), r.line))
            .collect::<Vec<_>>(),
        [("/page19999", 20_001)]
    );
}

#[test]
fn loops_that_multiply_stop_at_the_work_limit() {
    // 60^3 = 216,000 statements in the innermost body, over the 200,000 a file may run.
    let list = (0..60)
        .map(|i| format!("a{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let src = format!(
        "Rails.application.routes.draw do\n  %w[{list}].each do |a|\n    %w[{list}].each do |b|\n      %w[{list}].each do |c|\n        last = c\n      end\n    end\n  end\n  get 'after', to: 'pages#after'\nend\n"
    );
    let routes = Routes::parse("config/routes.rb", src.as_bytes());
    assert_eq!(routes.routes().len(), 0);
    assert_eq!(
        routes.diagnostics(),
        ["config/routes.rb:5: stopped after 200000 statements (loops over long lists?); later routes were not read"]
    );
}

#[test]
fn deep_nesting_is_cut_with_a_diagnostic() {
    let depth = 500;
    let mut src = String::from("Rails.application.routes.draw do\n");
    for _ in 0..depth {
        src.push_str("scope 'a' do\n");
    }
    src.push_str("get 'deep', to: 'deep#show'\n");
    for _ in 0..depth {
        src.push_str("end\n");
    }
    src.push_str("get 'shallow', to: 'pages#shallow'\nend\n");
    let routes = Routes::parse("config/routes.rb", src.as_bytes());
    assert_eq!(
        routes
            .routes()
            .iter()
            .map(|r| r.action.as_str())
            .collect::<Vec<_>>(),
        ["shallow"]
    );
    assert!(!routes.diagnostics().is_empty());

    // A concern that uses itself.
    let routes = Routes::parse(
        "config/routes.rb",
        b"Rails.application.routes.draw do\n  concern :again do\n    concerns :again\n  end\n  concerns :again\nend\n",
    );
    assert_eq!(routes.routes().len(), 0);
    assert!(
        routes.diagnostics()[0].contains("nested deeper than"),
        "{:?}",
        routes.diagnostics()
    );
}

#[test]
fn lookup_lists_every_route_of_an_action_in_matching_order() {
    let routes = Routes::parse(
        "config/routes.rb",
        b"Rails.application.routes.draw do\n  get 'watchers/new', to: 'watchers#new'\n  resources :projects, only: [] do\n    resources :watchers, only: [:new, :update]\n  end\n  namespace :admin do\n    resources :watchers, only: :new\n  end\nend\n",
    );
    let show = |rs: Vec<&Route>| {
        rs.iter()
            .map(|r| format!("{} {}", r.verb.as_str(), r.path))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        show(routes.lookup("watchers", "new")),
        [
            "GET /watchers/new",
            "GET /projects/:project_id/watchers/new"
        ]
    );
    assert_eq!(
        show(routes.lookup("watchers", "update")),
        [
            "PATCH /projects/:project_id/watchers/:id",
            "PUT /projects/:project_id/watchers/:id"
        ]
    );
    assert_eq!(
        show(routes.lookup("admin/watchers", "new")),
        ["GET /admin/watchers/new"]
    );
    assert_eq!(
        show(routes.lookup("watchers", "destroy")),
        [] as [String; 0]
    );
}

#[test]
fn controller_paths_of_controller_classes() {
    let cases = [
        ("UsersController", Some("users")),
        ("Admin::UsersController", Some("admin/users")),
        ("::Api::V1::ProjectsController", Some("api/v1/projects")),
        (
            "ContextMenus::IssuesController",
            Some("context_menus/issues"),
        ),
        ("HTMLPagesController", Some("html_pages")),
        ("OAuth2Controller", Some("o_auth2")),
        ("Oauth2ApplicationsController", Some("oauth2_applications")),
        (
            "Users::OmniauthCallbacksController",
            Some("users/omniauth_callbacks"),
        ),
        ("Controller", None),
        ("Admin::Controller", None),
        ("UserService", None),
    ];
    let got: Vec<_> = cases
        .iter()
        .map(|(c, _)| (*c, controller_path(c)))
        .collect();
    let want: Vec<_> = cases
        .iter()
        .map(|(c, p)| (*c, p.map(str::to_string)))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn verbs_have_rails_and_request_spec_spellings() {
    let all = [
        Verb::Get,
        Verb::Post,
        Verb::Patch,
        Verb::Put,
        Verb::Delete,
        Verb::Options,
        Verb::Any,
    ];
    assert_eq!(
        all.map(|v| (v.as_str(), v.helper())),
        [
            ("GET", "get"),
            ("POST", "post"),
            ("PATCH", "patch"),
            ("PUT", "put"),
            ("DELETE", "delete"),
            ("OPTIONS", "options"),
            ("ANY", "get"),
        ]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Any sequence of routing words, balanced or not, reads without panicking.
    #[test]
    fn any_routing_soup_reads_without_panicking(words in proptest::collection::vec(0usize..WORDS.len(), 0..60)) {
        let src: String = words.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
        let routes = Routes::parse("config/routes.rb", src.as_bytes());
        for r in routes.routes() {
            proptest::prop_assert!(r.path.starts_with('/') || r.path.starts_with('('));
        }
    }
}

const WORDS: &[&str] = &[
    "Rails.application.routes.draw do",
    "end",
    "do",
    "\n",
    "resources",
    "resource",
    ":posts",
    ":profile",
    "'x'",
    "\"a/:id\"",
    ",",
    "only:",
    "[:index, :show]",
    "except:",
    "shallow: true",
    "namespace :admin",
    "scope",
    "'(:locale)'",
    "member",
    "collection",
    "new",
    "get",
    "post",
    "match",
    "via: :all",
    "to: 'a#b'",
    "=>",
    "'c#d'",
    "on: :member",
    "concern :c",
    "concerns :c",
    "concerns: [:c]",
    "with_options",
    "|o|",
    "o.get",
    "%w[a b].each { |x|",
    "}",
    "get x",
    "root",
    "draw :x",
    "controller :c",
    "constraints(id: /\\d+/)",
    "path: ''",
    "as: nil",
    "param: :slug",
    "module: :m",
    "if x",
    "else",
    "{",
    "(",
    ")",
    "#{",
    "\"#{x}\"",
    "nested",
];

#[test]
fn several_resources_at_once_and_path_names() {
    assert_eq!(
        routes_of(
            "  resources :photos, :videos, only: :index
  resources :posts, path_names: { new: 'brand_new', edit: 'change' }, only: [:new, :edit]
  scope path_names: { new: 'nuevo' } do
    resources :ideas, only: :new
  end
  resources_path_names new: 'make'
  resources :drafts, only: :new
"
        ),
        "\
GET     /photos photos#index photos :2
GET     /videos videos#index videos :2
GET     /posts/brand_new posts#new new_post :3
GET     /posts/:id/change posts#edit edit_post :3
GET     /ideas/nuevo ideas#new new_idea :5
GET     /drafts/make drafts#new new_draft :8
"
    );
}

/// Prints the table of the app at `$ROUTES_APP` (a development aid).
#[test]
#[ignore = "needs ROUTES_APP"]
#[allow(clippy::print_stderr)]
fn dump_app_routes() {
    let root = std::env::var("ROUTES_APP").unwrap();
    eprint!("{}", table(&Routes::load(Path::new(&root))));
}

/// Coverage on real apps: for every public instance method of a `*Controller` class under
/// `app/controllers` (as `rspec-scout symbols app/controllers --format json` lists them,
/// from the release binary), whether some route reaches it; then a sample of 20 lookups per
/// app to read by hand against the routes file. `ROUTES_APPS` is a `:`-separated list of app
/// roots; the report goes to stderr.
#[test]
#[ignore = "needs ROUTES_APPS and target/release/rspec-scout"]
#[allow(clippy::print_stderr)]
fn real_apps_coverage() {
    let apps = std::env::var("ROUTES_APPS").unwrap();
    let binary = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/rspec-scout");
    for root in apps.split(':').filter(|s| !s.is_empty()) {
        let root = Path::new(root);
        let output = std::process::Command::new(&binary)
            .args(["symbols", "app/controllers", "--format", "json"])
            .current_dir(root)
            .output()
            .unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let routes = Routes::load(root);
        let mut actions = Vec::new();
        for file in answer["files"].as_array().unwrap() {
            for m in file["methods"].as_array().unwrap() {
                let class = m["class_name"].as_str().unwrap();
                if m["kind"] != "instance" || m["visibility"] != "public" {
                    continue;
                }
                if let Some(controller) = controller_path(class) {
                    actions.push((
                        class.to_string(),
                        controller,
                        m["name"].as_str().unwrap().to_string(),
                    ));
                }
            }
        }
        let routed: Vec<_> = actions
            .iter()
            .filter(|(_, c, a)| !routes.lookup(c, a).is_empty())
            .collect();
        eprintln!(
            "== {}: {} routes, {} diagnostics; {} of {} public controller actions routed ({:.1}%)",
            root.display(),
            routes.routes().len(),
            routes.diagnostics().len(),
            routed.len(),
            actions.len(),
            100.0 * routed.len() as f64 / actions.len().max(1) as f64
        );
        for (class, controller, action) in &actions {
            if routes.lookup(controller, action).is_empty() {
                eprintln!("   unrouted: {class}#{action} ({controller}#{action})");
            }
        }
        let step = (routed.len() / 20).max(1);
        for (class, controller, action) in routed.iter().step_by(step).take(20) {
            let found = routes.lookup(controller, action);
            let first = found[0];
            eprintln!(
                "   sample: {class}#{action} -> {} {} ({}:{}){}",
                first.verb.as_str(),
                first.path,
                first.file,
                first.line,
                if found.len() > 1 {
                    format!(" +{} more", found.len() - 1)
                } else {
                    String::new()
                }
            );
        }
        for d in routes.diagnostics() {
            eprintln!("   diagnostic: {d}");
        }
    }
}

#[test]
fn required_params_skip_optional_groups() {
    assert_eq!(super::required_params("/notes/:id/comment"), vec!["id"]);
    assert_eq!(
        super::required_params("/projects/:project_id/files/*path(/:locale)"),
        vec!["project_id", "path"]
    );
    assert!(super::required_params("/notes(/:id)/search").is_empty());
    assert_eq!(
        super::required_params("/files/:name.:ext"),
        vec!["name", "ext"]
    );
}
