//! What Rails (and the gems a Rails test suite uses) knows about an app, read from its
//! files: the methods Rails calls for you (`callbacks.rs`: callbacks, validations, filters,
//! `rescue_from` handlers), the routes (`routes.rs`, from `config/routes.rb`), the columns
//! and their types (`schema.rs`, from `db/schema.rb`) and the factories a suite builds
//! records with (`factories/`). One module the stages consult (discover, analyze, spec);
//! it reads Ruby through `index` and never imports a stage.

pub mod callbacks;
pub mod factories;
pub mod routes;
pub mod schema;
