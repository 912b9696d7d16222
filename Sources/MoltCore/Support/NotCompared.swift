/// Wraps a stored property that takes no part in `==` or hashing, such as where in a file a
/// value was read from: two models read from differently laid-out files are still equal.
@propertyWrapper
public struct NotCompared<Value: Sendable>: Sendable, Hashable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}
