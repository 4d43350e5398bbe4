/// The bracket around one trim pass: ``EvictionObserver/trimWillBegin(_:)`` before the first
/// removal, ``EvictionObserver/trimDidEnd(_:)`` after the last, and nothing at all for a pass
/// that removes nothing (so an observer may read a clock in those calls at no cost to requests
/// that evict nothing).
///
/// ```swift
/// var pass = TrimPass(.caller)
/// while overLimit { pass.willRemove(&observer); evict(victim(), observer: &observer) }
/// pass.end(&observer)
/// ```
///
/// - Complexity: O(1) per call.
@frozen
public struct TrimPass: Sendable {
    /// Who waits for this pass.
    public let kind: TrimKind
    @usableFromInline var begun = false

    /// A pass of `kind` that has not removed anything yet.
    @inlinable
    public init(_ kind: TrimKind) { self.kind = kind }

    /// Call before each removal: the first call announces the pass.
    @inlinable @inline(__always)
    public mutating func willRemove(_ observer: inout some EvictionObserver) {
        guard !begun else { return }
        begun = true
        observer.trimWillBegin(kind)
    }

    /// Closes the pass if it removed anything.
    @inlinable @inline(__always)
    public func end(_ observer: inout some EvictionObserver) {
        if begun { observer.trimDidEnd(kind) }
    }
}
