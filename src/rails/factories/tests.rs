//! One test per idiom of FactoryBot's and Fabrication's DSL, then the index's resolution.

use super::*;

fn file(source: &str) -> FactoryFile {
    parse("spec/factories/x.rb", source.as_bytes())
}

fn index(sources: &[(&str, &str)]) -> FactoryIndex {
    index_with(sources, &|_| (None, Vec::new()), true)
}

fn index_with(
    sources: &[(&str, &str)],
    enums: &dyn Fn(&str) -> ModelEnums,
    automatic: bool,
) -> FactoryIndex {
    FactoryIndex::build(
        sources
            .iter()
            .map(|(p, s)| parse(p, s.as_bytes()))
            .collect(),
        &Resolve {
            enums,
            automatic_enum_traits: automatic,
        },
    )
}

fn trait_names(f: &Factory) -> Vec<&str> {
    f.traits.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn a_factory_and_its_traits() {
    let f = file(
        "FactoryBot.define do\n  factory :payment do\n    amount { 100 }\n    status { :pending }\n    trait :completed do\n      status { :completed }\n      completed_at { Time.current }\n    end\n    trait(:refunded) { status { \"refunded\" } }\n  end\nend\n",
    );
    assert_eq!(f.library, Some(Library::FactoryBot));
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    let [p] = f.factories.as_slice() else {
        panic!("{f:?}")
    };
    assert_eq!(p.name, "payment");
    assert_eq!(p.line, 2);
    let traits: Vec<_> = p.traits.iter().map(|t| (t.name.as_str(), t.line)).collect();
    assert_eq!(traits, [("completed", 5), ("refunded", 9)]);
    assert_eq!(
        p.attributes
            .iter()
            .map(|a| (a.name.as_str(), a.literal.clone()))
            .collect::<Vec<_>>(),
        [
            ("amount", Some(Literal::Int(100))),
            ("status", Some(Literal::Sym("pending".into())))
        ]
    );
    assert_eq!(
        p.traits[1].attributes[0].literal,
        Some(Literal::Str("refunded".into()))
    );
}

#[test]
fn nested_factories_take_the_enclosing_one_as_parent() {
    let i = index(&[(
        "spec/factories/users.rb",
        "FactoryBot.define do\n  factory :user do\n    trait :banned do\n      banned_at { 1.day.ago }\n    end\n    factory :admin do\n      admin { true }\n      factory :super_admin\n    end\n  end\nend\n",
    )]);
    let names: Vec<_> = i
        .factories
        .iter()
        .map(|f| (f.name.as_str(), f.parent.as_deref(), f.class.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            ("user", None, Some("User")),
            ("admin", Some("user"), Some("User")),
            ("super_admin", Some("admin"), Some("User")),
        ]
    );
    let super_admin = i.named("super_admin").unwrap();
    assert_eq!(
        super_admin.traits[0].origin,
        TraitOrigin::Parent("user".into())
    );
    assert_eq!(
        super_admin.default_of("admin"),
        Some(&Some(Literal::Bool(true)))
    );
    assert_eq!(i.for_class("User")[0].name, "user");
}

#[test]
fn parent_class_and_aliases_as_options() {
    let i = index(&[(
        "spec/factories/all.rb",
        "FactoryBot.define do\n  factory :account, class: \"Billing::Account\", aliases: [:owner, :payer] do\n  end\n  factory :closed_account, parent: :account do\n  end\n  factory :order, class: Shop::Order, aliases: :purchase\n  factory :line, class: :line_item\n  factory :handle, class: Spree::UserClassHandle.new\nend\n",
    )]);
    let got: Vec<_> = i
        .factories
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.class.as_deref(),
                f.aliases.clone(),
                f.parent.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "account",
                Some("Billing::Account"),
                vec!["owner".to_string(), "payer".to_string()],
                None
            ),
            (
                "closed_account",
                Some("Billing::Account"),
                vec![],
                Some("account")
            ),
            (
                "order",
                Some("Shop::Order"),
                vec!["purchase".to_string()],
                None
            ),
            ("line", Some("LineItem"), vec![], None),
            // A class built by an expression is not known (not guessed from the name).
            ("handle", None, vec![], None),
        ]
    );
    assert_eq!(i.named("payer").unwrap().name, "account");
    assert_eq!(i.diagnostics.len(), 1, "{:?}", i.diagnostics);
}

#[test]
fn transient_sequence_and_associations() {
    let i = index(&[
        (
            "spec/factories/a.rb",
            "FactoryBot.define do\n  sequence(:email) { |n| \"u#{n}@x.io\" }\n  factory :user do\n    email\n    sequence(:username) { |n| \"u#{n}\" }\n    transient do\n      posts_count { 2 }\n    end\n    ignore do\n      legacy { false }\n    end\n  end\n  factory :post do\n    user\n    association :editor, factory: :user, strategy: :build\n    reviewer factory: [:user, :admin]\n    add_attribute(:title) { \"T\" }\n  end\nend\n",
        ),
    ]);
    let user = i.named("user").unwrap();
    assert_eq!(user.sequences, ["email", "username"]);
    assert_eq!(user.transients, ["posts_count", "legacy"]);
    let post = i.named("post").unwrap();
    assert_eq!(
        post.associations,
        [
            ("user".to_string(), "user".to_string()),
            ("editor".to_string(), "user".to_string()),
            ("reviewer".to_string(), "user".to_string())
        ]
    );
    assert_eq!(
        post.default_of("title"),
        Some(&Some(Literal::Str("T".into())))
    );
    assert_eq!(i.sequences[0].0, "email");
}

#[test]
fn a_bare_name_that_is_neither_factory_nor_sequence_includes_a_trait() {
    let i = index(&[(
        "spec/factories/a.rb",
        "FactoryBot.define do\n  trait :timestamped do\n    created_at { 1.day.ago }\n  end\n  factory :story, traits: [:timestamped] do\n    trait :deleted do\n      is_deleted { true }\n    end\n    factory :deleted_story do\n      deleted\n    end\n  end\nend\n",
    )]);
    let story = i.named("story").unwrap();
    assert_eq!(story.base_traits, ["timestamped"]);
    assert_eq!(trait_names(story), ["deleted", "timestamped"]);
    assert_eq!(
        story.trait_named("timestamped").unwrap().origin,
        TraitOrigin::Global
    );
    assert_eq!(i.named("deleted_story").unwrap().base_traits, ["deleted"]);
    assert_eq!(i.global_traits[0].0, "timestamped");
}

#[test]
fn traits_for_enum_with_values_and_from_the_model() {
    let enums = |class: &str| match class {
        "Payment" => (
            Some("app/models/payment.rb".to_string()),
            vec![
                (
                    "status".to_string(),
                    vec!["pending".to_string(), "completed".to_string()],
                ),
                ("kind".to_string(), vec!["card".to_string()]),
            ],
        ),
        _ => (None, Vec::new()),
    };
    let sources = [(
        "spec/factories/p.rb",
        "FactoryBot.define do\n  factory :payment do\n    traits_for_enum :status\n    traits_for_enum :channel, %w[web api]\n    traits_for_enum(:tier, { basic: 0, premium: 1 })\n    traits_for_enum :mood\n    trait :completed do\n      status { :completed }\n    end\n  end\nend\n",
    )];
    let i = index_with(&sources, &enums, false);
    let p = i.named("payment").unwrap();
    // The factory's own `completed` wins over the enum's.
    assert_eq!(
        trait_names(p),
        ["completed", "pending", "web", "api", "basic", "premium"]
    );
    assert_eq!(
        p.trait_named("pending").unwrap().origin,
        TraitOrigin::Enum("status".into())
    );
    assert_eq!(
        p.trait_named("web").unwrap().sets,
        [("channel".to_string(), Some(Literal::Str("web".into())))]
    );
    // `:mood` has no enum in the model: said, not guessed.
    assert!(
        i.diagnostics[0].message.contains("traits_for_enum :mood"),
        "{:?}",
        i.diagnostics
    );
    // FactoryBot 6 also defines traits for every enum of the model by itself.
    let i = index_with(&sources, &enums, true);
    assert!(i.named("payment").unwrap().trait_named("card").is_some());
}

#[test]
fn factories_in_a_loop_over_a_literal_list_are_unrolled() {
    let f = file(
        "FactoryBot.define do\n  %i[admin guest].each do |role|\n    factory :\"#{role}_user\", class: \"User\" do\n      role { role }\n    end\n  end\n  ROLES.each do |r|\n    factory r\n  end\nend\n",
    );
    let names: Vec<_> = f.factories.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["admin_user", "guest_user"]);
    assert_eq!(f.diagnostics.len(), 1, "{:?}", f.diagnostics);
    assert!(f.diagnostics[0].1.contains("in a loop"));
}

#[test]
fn modify_adds_to_a_factory_defined_elsewhere() {
    let i = index(&[
        ("spec/factories/a.rb", "FactoryBot.define do\n  factory :user do\n  end\nend\n"),
        (
            "spec/factories/b.rb",
            "FactoryBot.modify do\n  factory :user do\n    trait :vip do\n      vip { true }\n    end\n  end\nend\n",
        ),
    ]);
    assert_eq!(i.factories.len(), 1);
    assert_eq!(trait_names(&i.factories[0]), ["vip"]);
}

#[test]
fn fabrication() {
    let i = index(&[(
        "spec/fabricators/user_fabricator.rb",
        "Fabricator(:user) do\n  name { 'Ada' }\n  admin false\n  sequence(:email) { |i| \"u#{i}@x.io\" }\n  transient :with_posts\n  company\n  manager(fabricator: :user)\nend\n\nFabricator(:admin, from: :user) do\n  admin true\nend\n\nFabricator(:buyer, from: :user, class_name: 'Shop::Customer')\nFabricator(:account, from: 'Billing::Account')\n",
    )]);
    let got: Vec<_> = i
        .factories
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.class.as_deref(),
                f.parent.as_deref(),
                f.library,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("user", Some("User"), None, Library::Fabrication),
            ("admin", Some("User"), Some("user"), Library::Fabrication),
            (
                "buyer",
                Some("Shop::Customer"),
                Some("user"),
                Library::Fabrication
            ),
            (
                "account",
                Some("Billing::Account"),
                None,
                Library::Fabrication
            ),
        ]
    );
    let user = i.named("user").unwrap();
    assert_eq!(user.default_of("admin"), Some(&Some(Literal::Bool(false))));
    assert_eq!(user.transients, ["with_posts"]);
    assert_eq!(user.sequences, ["email"]);
    assert_eq!(
        user.associations,
        [("manager".to_string(), "user".to_string())]
    );
    assert_eq!(
        i.named("admin").unwrap().default_of("admin"),
        Some(&Some(Literal::Bool(true)))
    );
}

#[test]
fn a_file_that_does_not_parse_gives_what_it_can_and_says_why() {
    let f = file("FactoryBot.define do\n  factory :user do\n    trait :x do\n  end\n");
    assert!(!f.diagnostics.is_empty());
    assert!(
        f.diagnostics[0].1.starts_with("syntax error"),
        "{:?}",
        f.diagnostics
    );
    assert_eq!(f.factories.first().map(|f| f.name.as_str()), Some("user"));
    // Binary junk never panics.
    let f = parse("x.rb", &[0xff, 0xfe, b'F', 0, 1, 2]);
    assert!(f.factories.is_empty());
}

#[test]
fn gems_factories_required_by_the_spec_helpers() {
    let helpers = vec![(
        "spec/rails_helper.rb".to_string(),
        "require 'spree/testing_support/factories'\nrequire \"rails_helper\"\n# require 'x/testing_support/factories'\n".to_string(),
    )];
    assert_eq!(
        required_factories(&helpers),
        ["spree/testing_support/factories"]
    );
}
