import Foundation

/// Delivers the system's memory warnings and background transitions to one cache, holding it
/// weakly. Dropping the relay (with the cache) unsubscribes.
final class _SystemEventRelay: @unchecked Sendable {
    private let deliver: @Sendable (CacheEvent) -> Void
    // One condition for the property, `init` and `deinit`: watchOS has UIKit but not its
    // application notifications, so it takes the memory-pressure source.
    #if canImport(UIKit) && !os(watchOS)
    private var tokens: [NSObjectProtocol] = []
    #elseif canImport(Darwin)
    private var source: DispatchSourceMemoryPressure?
    #endif

    init(deliver: @escaping @Sendable (CacheEvent) -> Void) {
        self.deliver = deliver
        #if canImport(UIKit) && !os(watchOS)
        let center = NotificationCenter.default
        let deliver = self.deliver
        // UIKit's notification names by their values, so that nothing here touches the
        // main-actor-isolated UIApplication.
        tokens.append(center.addObserver(forName: Notification.Name("UIApplicationDidReceiveMemoryWarningNotification"),
                                         object: nil, queue: nil) { _ in deliver(.memoryWarning) })
        tokens.append(center.addObserver(forName: Notification.Name("UIApplicationDidEnterBackgroundNotification"),
                                         object: nil, queue: nil) { _ in deliver(.background) })
        #elseif canImport(Darwin)
        // macOS, watchOS and other platforms without UIKit's application notifications: the
        // kernel's memory-pressure notifications.
        let source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical], queue: .global(qos: .utility))
        let deliver = self.deliver
        source.setEventHandler { deliver(.memoryWarning) }
        source.resume()
        self.source = source
        #endif
        // Linux has neither: the app calls `handle(.memoryWarning)` itself.
    }

    /// Delivers `event` as the system's notification does (for tests, on platforms without one).
    func send(_ event: CacheEvent) { deliver(event) }

    deinit {
        #if canImport(UIKit) && !os(watchOS)
        for token in tokens { NotificationCenter.default.removeObserver(token) }
        #elseif canImport(Darwin)
        source?.cancel()
        #endif
    }
}

/// Where a relay delivers events. The relay's closure captures the target as this existential,
/// not as a generic class, so that it captures no metatype of the cache's key or value.
protocol _SystemEventTarget: AnyObject, Sendable {
    func deliver(_ event: CacheEvent)
}

/// Holds a cache weakly across threads: the relay's closures must be `Sendable` even when the
/// cache is not (its values are not), and they only call its locked `handle(_:)`.
private final class _WeakCache<Key: Hashable, Value>: _SystemEventTarget, @unchecked Sendable {
    weak var cache: Cache<Key, Value>?
    init(_ cache: Cache<Key, Value>) { self.cache = cache }
    func deliver(_ event: CacheEvent) { cache?.handle(event) }
}

extension Cache {
    /// Subscribes the cache to the system's memory and background events, where the platform has
    /// them; the returned object unsubscribes when released.
    @usableFromInline
    func _subscribeToSystemEvents() -> AnyObject? {
        #if canImport(Darwin)
        let target: any _SystemEventTarget = _WeakCache(self)
        return _SystemEventRelay { event in target.deliver(event) }
        #else
        return nil
        #endif
    }
}
