import Molt

/// What `check-model` checks in each version, and what it found.
struct ModelCheckRun {
    let diagnostics: [Diagnostic]
    /// The versions CloudKit's rules were checked in.
    let cloudKitVersions: [String]
    /// The production version and the versions compared with it, with --production-version.
    let production: (version: String, later: [String])?
    let versionCount: Int

    /// Checks `models` (the one model, or a bundle's versions oldest first, from `source` at
    /// `path`): each with ``ModelChecker``, with CloudKit's rules where the model marks them,
    /// `cloudKit` asks or it comes after `productionVersion`, and each version after
    /// `productionVersion` against it.
    init(
        models: [ObjectModel], source: ModelSource, path: String, cloudKit: Bool, productionVersion: String?
    ) throws {
        var laterNames: Set<String> = []
        var productionCheck: ProductionSchemaCheck?
        if let productionVersion {
            guard case .bundle = source else {
                throw MoltError(
                    .fileReadNoSuchFile,
                    "--production-version \(productionVersion) names a version of a bundle, but this is a single model",
                    location: SourceLocation(file: path),
                    recovery: "Give the .xcdatamodeld bundle that holds every version of the model.")
            }
            let (production, later) = try ProductionSchemaCheck.split(models, at: productionVersion, file: path)
            laterNames = Set(later.compactMap(\.name))
            productionCheck = ProductionSchemaCheck(production: production)
            self.production = (productionVersion, later.compactMap(\.name))
        } else {
            self.production = nil
        }
        var diagnostics: [Diagnostic] = []
        var cloudKitVersions: [String] = []
        for model in models {
            let isLater = model.name.map { laterNames.contains($0) } ?? false
            let withCloudKit = cloudKit || isLater || CloudKitRules.isMarked(model)
            if withCloudKit { cloudKitVersions.append(model.name ?? path) }
            diagnostics += ModelChecker(cloudKitRules: withCloudKit ? CloudKitRules() : nil).check(model)
            if isLater, let productionCheck { diagnostics += productionCheck.check(model) }
        }
        self.diagnostics = diagnostics
        self.cloudKitVersions = cloudKitVersions
        versionCount = models.count
    }

    /// "3 model versions", with what was checked for CloudKit.
    var summary: String {
        var text = versionCount == 1 ? "1 model" : "\(versionCount) model versions"
        var parts: [String] = []
        if !cloudKitVersions.isEmpty {
            parts.append("CloudKit's rules in \(cloudKitVersions.joined(separator: ", "))")
        }
        if let production {
            let later = production.later.isEmpty ? "no later version" : production.later.joined(separator: ", ")
            parts.append("\(later) against the production schema \(production.version)")
        }
        if !parts.isEmpty { text += " (\(parts.joined(separator: "; ")))" }
        return text
    }

    var cloudKitJSON: CheckJSON.CloudKit? {
        guard !cloudKitVersions.isEmpty || production != nil else { return nil }
        return CheckJSON.CloudKit(
            rulesChecked: cloudKitVersions, productionVersion: production?.version,
            checkedAgainstProduction: production?.later ?? [])
    }
}
