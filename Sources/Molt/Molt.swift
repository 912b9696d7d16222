// The Molt library: one import for everything an app or tool needs.
//
//     import Molt
//
//     let model = try ModelLoader().load(at: modelURL)
//     let store = try ObjectStore.open(at: storeURL, models: .model(model))
//
// Layers (each its own module): MoltCore (errors, diagnostics, property lists), MoltModel
// (object models, Xcode files, version hashes), MoltStore (Core Data's SQLite layout, metadata,
// objects, JSON). The C libraries underneath are never part of this API. swift-log's `Logging`
// comes with it: a run's `RunContext` takes a `Logger`.
@_exported import Logging
@_exported import MoltCore
@_exported import MoltMapping
@_exported import MoltMigration
@_exported import MoltModel
@_exported import MoltStore
