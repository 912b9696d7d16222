internal import MoltCore

/// A property's flags as Core Data archives them: the `_P` bit set, or (in archives without
/// it) one boolean key per flag.
///
/// `_P` bits: 0x1 always set; 0x2 optional; 0x4 read-only; 0x8 transient; 0x10 no validation
/// predicates archived; 0x20 no validation warnings; 0x40 no user info; 0x80 no version hash
/// modifier; 0x100 indexed by Spotlight; 0x200 stored in an external record; 0x400 ordered;
/// 0x800 allows cloud encryption. When `_P` is there, Core Data reads the flags from it alone
/// and skips the keys its "no …" bits say are absent; Molt does the same, and refuses bits it
/// does not know and boolean keys that contradict `_P`. Checked against the real store: its
/// optional properties have `_P` = 243 (0x1, 0x2, 0x10, 0x20, 0x40, 0x80) and `NSIsOptional`.
struct PropertyFlags {
    static let present = 0x1
    static let optional = 0x2
    static let readOnly = 0x4
    static let transient = 0x8
    static let noValidationPredicates = 0x10
    static let noValidationWarnings = 0x20
    static let noUserInfo = 0x40
    static let noVersionHashModifier = 0x80
    static let indexedBySpotlight = 0x100
    static let storedInExternalRecord = 0x200
    static let ordered = 0x400
    static let allowsCloudEncryption = 0x800
    static let known = 0xFFF

    /// Each boolean key and the bit it stands for.
    static let keys: [(key: String, bit: Int)] = [
        ("NSIsOptional", optional), ("NSIsReadOnly", readOnly), ("NSIsTransient", transient),
        ("NSIndexedBySpotlight", indexedBySpotlight), ("NSIsStoredInTruth", storedInExternalRecord),
        ("NSIsOrdered", ordered), ("NSAllowsCloudEncryption", allowsCloudEncryption),
    ]

    let bits: Int
    /// Whether `_P` says which optional keys are archived (otherwise all are read).
    let fromBitSet: Bool

    var isOptional: Bool { bits & Self.optional != 0 }
    var isReadOnly: Bool { bits & Self.readOnly != 0 }
    var isTransient: Bool { bits & Self.transient != 0 }
    var isOrdered: Bool { bits & Self.ordered != 0 }
    var readsValidationPredicates: Bool { !fromBitSet || bits & Self.noValidationPredicates == 0 }
    var readsUserInfo: Bool { !fromBitSet || bits & Self.noUserInfo == 0 }
    var readsVersionHashModifier: Bool { !fromBitSet || bits & Self.noVersionHashModifier == 0 }

    init(bits: Int, fromBitSet: Bool) {
        self.bits = bits
        self.fromBitSet = fromBitSet
    }

    /// Reads the flags of `object`, the property `property` of `entity`.
    init(_ object: ArchivedObject, context: CompiledModelContext, entity: String, property: String) throws {
        var fromKeys = 0
        var stated: [(key: String, bit: Int, value: Bool)] = []
        for (key, bit) in Self.keys {
            guard let value = try object.integer(key) else { continue }
            stated.append((key, bit, value != 0))
            if value != 0 { fromKeys |= bit }
        }
        let encoded = try object.integer("_P") ?? 0
        guard encoded != 0 else {
            self.init(bits: fromKeys, fromBitSet: false)
            return
        }
        guard encoded > 0, encoded & ~Int64(Self.known) == 0 else {
            throw context.unsupported(
                "its property flags _P = 0x\(String(encoded, radix: 16)) have bits Molt does not know; they may change the version hash",
                entity: entity, property: property)
        }
        let bits = Int(encoded)
        for statement in stated where (bits & statement.bit != 0) != statement.value {
            throw context.corrupt(
                "its property flags _P = 0x\(String(bits, radix: 16)) and \(statement.key) = \(statement.value ? "YES" : "NO") disagree",
                entity: entity, property: property)
        }
        self.init(bits: bits, fromBitSet: true)
    }
}

/// An attribute's extra flags (`NSFlagsKey`): 0x1 a maximum is archived (`NSMaxValueName`),
/// 0x2 a minimum (`NSMinValueName`), 0x4 binary data may be stored outside the store, 0x10
/// the value is preserved in persistent history on deletion, 0x20 a file-backed future. Other
/// bits are refused. Checked against the real store: 0 on every attribute.
struct AttributeFlags {
    static let hasMaximum = 0x1
    static let hasMinimum = 0x2
    static let externalStorage = 0x4
    static let preserveOnDeletion = 0x10
    static let fileBackedFuture = 0x20
    static let known = 0x37

    let bits: Int

    var hasMaximum: Bool { bits & Self.hasMaximum != 0 }
    var hasMinimum: Bool { bits & Self.hasMinimum != 0 }
    var allowsExternalStorage: Bool { bits & Self.externalStorage != 0 }
    var preservesOnDeletion: Bool { bits & Self.preserveOnDeletion != 0 }
    var isFileBackedFuture: Bool { bits & Self.fileBackedFuture != 0 }

    init(bits: Int) {
        self.bits = bits
    }

    init(_ object: ArchivedObject, context: CompiledModelContext, entity: String, property: String) throws {
        let value = try object.integer("NSFlagsKey") ?? 0
        guard value >= 0, value & ~Int64(Self.known) == 0 else {
            throw context.unsupported(
                "its attribute flags NSFlagsKey = 0x\(String(value, radix: 16)) have bits Molt does not know; they may change the version hash",
                entity: entity, property: property)
        }
        self.init(bits: Int(value))
    }
}
