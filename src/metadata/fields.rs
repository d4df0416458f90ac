//! Typed fields each stage writes into a metadata file (the only Serialize types for it).
