extension MoltError {
    /// A numeric error code in Cocoa's error domain, as Core Data and Foundation use them.
    ///
    /// A struct rather than an enum so that a new code needs no new case to be carried. The
    /// named constants are the codes Molt raises; ``isTransient`` says whether retrying later
    /// may succeed.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        // MARK: Files (Foundation)
        /// A file could not be read for an unknown reason (NSFileReadUnknownError).
        public static let fileReadUnknown = Code(rawValue: 256)
        /// A file could not be read because of permissions (NSFileReadNoPermissionError).
        public static let fileReadNoPermission = Code(rawValue: 257)
        /// A file is malformed: bad XML, an invalid model, a bad JSON seed (NSFileReadCorruptFileError).
        public static let fileReadCorruptFile = Code(rawValue: 259)
        /// A file does not exist (NSFileReadNoSuchFileError).
        public static let fileReadNoSuchFile = Code(rawValue: 260)
        /// A file could not be written for an unknown reason (NSFileWriteUnknownError).
        public static let fileWriteUnknown = Code(rawValue: 512)
        /// A file or folder could not be written because of permissions (NSFileWriteNoPermissionError).
        public static let fileWriteNoPermission = Code(rawValue: 513)
        /// A file could not be written because it already exists (NSFileWriteFileExistsError).
        public static let fileWriteFileExists = Code(rawValue: 516)
        /// A property list is malformed (NSPropertyListReadCorruptError).
        public static let propertyListReadCorrupt = Code(rawValue: 3840)
        /// An archive cannot be decoded: damaged, or holding an object of an unexpected class
        /// (NSCoderReadCorruptError, what unarchiving a transformable value reports).
        public static let coderReadCorrupt = Code(rawValue: 4864)
        /// A value cannot be archived or transformed for storing (NSCoderInvalidValueError).
        public static let coderInvalidValue = Code(rawValue: 4866)

        // MARK: Core Data
        /// The file is not a Core Data SQLite store (NSPersistentStoreInvalidTypeError).
        public static let persistentStoreInvalidType = Code(rawValue: 134000)
        /// A general Core Data error; Molt uses it for a model that fails its consistency
        /// check (NSCoreDataError).
        public static let invalidModel = Code(rawValue: 134060)
        /// A store could not be opened (NSPersistentStoreOpenError).
        public static let persistentStoreOpen = Code(rawValue: 134080)
        /// The store could not be had in time: another migration of it is running and did not
        /// finish within the wait allowed (NSPersistentStoreTimeoutError). Transient.
        public static let persistentStoreTimeout = Code(rawValue: 134090)
        /// The store's entity hashes differ from the model's
        /// (NSPersistentStoreIncompatibleVersionHashError).
        public static let incompatibleVersionHash = Code(rawValue: 134100)
        /// A migration failed (NSMigrationError).
        public static let migration = Code(rawValue: 134110)
        /// A migration was cancelled (NSMigrationCancelledError). Transient.
        public static let migrationCancelled = Code(rawValue: 134120)
        /// No source model matches the store (NSMigrationMissingSourceModelError).
        public static let missingSourceModel = Code(rawValue: 134130)
        /// No mapping model was found (NSMigrationMissingMappingModelError).
        public static let missingMappingModel = Code(rawValue: 134140)
        /// The source store failed during a migration (NSMigrationManagerSourceStoreError).
        public static let sourceStore = Code(rawValue: 134150)
        /// The destination store failed during a migration (NSMigrationManagerDestinationStoreError).
        public static let destinationStore = Code(rawValue: 134160)
        /// An entity-migration policy failed (NSEntityMigrationPolicyError).
        public static let entityMigrationPolicy = Code(rawValue: 134170)
        /// SQLite reported an error: I/O, locking, disk full, corruption (NSSQLiteError).
        public static let sqlite = Code(rawValue: 134180)
        /// A mapping could not be inferred (NSInferredMappingModelError).
        public static let inferredMapping = Code(rawValue: 134190)
        /// The store was made with a model version that comes after the destination version:
        /// stores are never migrated backwards.
        public static let storeNewerThanDestination = Code(rawValue: 134530)

        /// Objects break a uniqueness constraint (NSManagedObjectConstraintMergeError).
        public static let constraintConflict = Code(rawValue: 133021)

        // MARK: Validation
        /// An object failed validation (NSManagedObjectValidationError).
        public static let validation = Code(rawValue: 1550)
        /// Several validation errors (NSValidationMultipleErrorsError).
        public static let validationMultiple = Code(rawValue: 1560)
        /// A non-optional property has no value (NSValidationMissingMandatoryPropertyError).
        public static let validationMissingMandatoryProperty = Code(rawValue: 1570)
        /// A to-many relationship has too few objects (NSValidationRelationshipLacksMinimumCountError).
        public static let validationRelationshipLacksMinimumCount = Code(rawValue: 1580)
        /// A to-many relationship has too many objects (NSValidationRelationshipExceedsMaximumCountError).
        public static let validationRelationshipExceedsMaximumCount = Code(rawValue: 1590)
        /// An object cannot be deleted: a relationship with the Deny rule still has objects
        /// (NSValidationRelationshipDeniedDeleteError).
        public static let validationRelationshipDeniedDelete = Code(rawValue: 1600)
        /// A number is above its maximum (NSValidationNumberTooLargeError).
        public static let validationNumberTooLarge = Code(rawValue: 1610)
        /// A number is below its minimum (NSValidationNumberTooSmallError).
        public static let validationNumberTooSmall = Code(rawValue: 1620)
        /// A date is after its maximum (NSValidationDateTooLateError).
        public static let validationDateTooLate = Code(rawValue: 1630)
        /// A date is before its minimum (NSValidationDateTooSoonError).
        public static let validationDateTooSoon = Code(rawValue: 1640)
        /// A string is longer than its maximum (NSValidationStringTooLongError).
        public static let validationStringTooLong = Code(rawValue: 1660)
        /// A string is shorter than its minimum (NSValidationStringTooShortError).
        public static let validationStringTooShort = Code(rawValue: 1670)
        /// A string does not match its pattern (NSValidationStringPatternMatchingError).
        public static let validationStringPatternMatching = Code(rawValue: 1680)

        /// Whether retrying the same operation later may succeed: a cancelled migration, an
        /// SQLite error such as a lock or a full disk, or another migration of the store running.
        public var isTransient: Bool {
            self == .migrationCancelled || self == .sqlite || self == .persistentStoreTimeout
        }

        /// Every code Molt names, in numeric order.
        public static var allNamed: [Code] {
            names.keys.sorted().map { Code(rawValue: $0) }
        }

        /// Core Data's (or Foundation's) constant name for this code.
        public var name: String {
            Code.names[rawValue] ?? "code \(rawValue)"
        }

        public var description: String { "\(rawValue)" }

        private static let names: [Int: String] = [
            256: "NSFileReadUnknownError",
            257: "NSFileReadNoPermissionError",
            259: "NSFileReadCorruptFileError",
            260: "NSFileReadNoSuchFileError",
            512: "NSFileWriteUnknownError",
            513: "NSFileWriteNoPermissionError",
            516: "NSFileWriteFileExistsError",
            3840: "NSPropertyListReadCorruptError",
            4864: "NSCoderReadCorruptError",
            4866: "NSCoderInvalidValueError",
            134000: "NSPersistentStoreInvalidTypeError",
            134060: "NSCoreDataError",
            134080: "NSPersistentStoreOpenError",
            134090: "NSPersistentStoreTimeoutError",
            134100: "NSPersistentStoreIncompatibleVersionHashError",
            134110: "NSMigrationError",
            134120: "NSMigrationCancelledError",
            134130: "NSMigrationMissingSourceModelError",
            134140: "NSMigrationMissingMappingModelError",
            134150: "NSMigrationManagerSourceStoreError",
            134160: "NSMigrationManagerDestinationStoreError",
            134170: "NSEntityMigrationPolicyError",
            134180: "NSSQLiteError",
            134190: "NSInferredMappingModelError",
            // Molt's own code (Core Data has none for it): a name of the same form.
            134530: "MoltStoreNewerThanDestinationError",
            133021: "NSManagedObjectConstraintMergeError",
            1550: "NSManagedObjectValidationError",
            1560: "NSValidationMultipleErrorsError",
            1570: "NSValidationMissingMandatoryPropertyError",
            1580: "NSValidationRelationshipLacksMinimumCountError",
            1590: "NSValidationRelationshipExceedsMaximumCountError",
            1600: "NSValidationRelationshipDeniedDeleteError",
            1610: "NSValidationNumberTooLargeError",
            1620: "NSValidationNumberTooSmallError",
            1630: "NSValidationDateTooLateError",
            1640: "NSValidationDateTooSoonError",
            1660: "NSValidationStringTooLongError",
            1670: "NSValidationStringTooShortError",
            1680: "NSValidationStringPatternMatchingError",
        ]
    }
}
