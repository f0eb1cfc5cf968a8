import Synchronization

/// A value computed on first use, at most once, from any thread.
final class Lazy<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let cache = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    var value: Value {
        cache.withLock { cached in
            if let cached { return cached }
            let value = make()
            cached = value
            return value
        }
    }
}
