import Foundation

/// A value a test shares with the threads or closures it starts, behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// A box holding `value`.
    public init(_ value: Value) { stored = value }

    /// The value now.
    public var value: Value { lock.withLock { stored } }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    public func update<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&stored) } }
}
