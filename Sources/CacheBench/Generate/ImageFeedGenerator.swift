/// `image-feed`: a photo app's scrolling grid feed, as an image memory cache sees it.
///
/// Each step the user scrolls onto a post, 50–350 ms after the previous one: with probability
/// `revisit` a scroll back to one of the last 50 posts seen, otherwise a post drawn by Zipf(alpha)
/// popularity over `objects` posts (popular posts reach many feeds). Viewing requests the post's
/// grid thumbnail; 8 % of views open the post, which requests the author's avatar and the
/// full-width image. Authors are Zipf(1.0) over objects/10 users, fixed per post.
///
/// Sizes are decoded bitmaps, 4 bytes per pixel as AFNetworking counts them, for a 390-point
/// wide screen at 3x: thumbnails 390×390 (608,400 B), one post in five a featured 780×780 tile
/// (2,433,600 B); full-width images 1170 wide in square (1170), portrait 4:5 (1463) or landscape
/// 1.91:1 (613) shape; avatars 120×120 (57,600 B). Keys: thumbnail = post, full-width image =
/// 1,000,000 + post, avatar = 2,000,000 + user.
///
/// The environment: one memory warning per 20,000 requests (at least one) and one trip to the
/// background per 30,000 (at least one), at random requests after the first 10 %; each
/// background is followed by 1–30 minutes away. Every row is a get or an event.
public struct ImageFeedGenerator: TraceGenerator {
    public static var kind: String { "image-feed" }
    public static var summary: String {
        "a photo app's grid feed: Zipf-popular posts and scroll-backs as decoded-bitmap thumbnails, 8 % opened full-width with the author's avatar, memory warnings and trips to the background"
    }
    public static var parameters: [GeneratorParameter] {
        [
            GeneratorParameter("alpha", default: "0.9", "Zipf exponent of post popularity"),
            GeneratorParameter("objects", default: "20000", "number of posts (at most 999999)"),
            GeneratorParameter("revisit", default: "0.3", "probability that a view scrolls back to one of the last 50 posts"),
        ]
    }
    public static var defaultRequests: Int { 100_000 }

    static let recentCapacity = 50
    static let openProbability = 0.08
    static let thumbnail = 4 * 390 * 390
    static let featuredThumbnail = 4 * 780 * 780
    static let avatar = 4 * 120 * 120
    static let fullWidthHeights = [1170, 1463, 613]

    private var random: Xoshiro256StarStar
    private let seed: UInt64
    private let requests: Int
    private let posts: ZipfSampler
    private let authors: ZipfSampler
    private let revisit: Double
    private var recent: [Int] = []
    private var recentNext = 0
    /// Request indices before which a memory warning, or a trip to the background, happens.
    private var memoryWarnings: [Int]
    private var backgrounds: [Int]
    private var milliseconds: Int64 = 0
    private var emitted = 0
    private var pending: [Request] = []
    private var pendingNext = 0

    /// The most requests one trace holds: its memory warnings and background transitions (one
    /// per 20,000 and 30,000 requests) are drawn up front, sorted, which at this bound is a few
    /// megabytes (a trace of 10^10 rows is some 300 GB of CSV).
    public static let maximumRequests = 10_000_000_000

    public init(seed: UInt64, requests: Int, options: GeneratorOptions) throws(GeneratorError) {
        guard requests <= Self.maximumRequests else {
            throw .invalidValue(InvalidValueError("requests", String(requests),
                                                  expected: "image-feed traces hold at most \(Self.maximumRequests) requests (its events are scheduled up front)"))
        }
        let alpha = try options.double("alpha", default: 0.9, in: 0...20)
        let objects = try options.integer("objects", default: 20_000, in: 1...999_999)
        revisit = try options.double("revisit", default: 0.3, in: 0...1)
        self.seed = seed
        self.requests = requests
        posts = ZipfSampler(count: objects, alpha: alpha)
        authors = ZipfSampler(count: max(1, objects / 10), alpha: 1.0)
        random = Xoshiro256StarStar(seed: seed)
        recent.reserveCapacity(Self.recentCapacity)
        func schedule(_ count: Int, _ random: inout Xoshiro256StarStar) -> [Int] {
            guard requests > 0 else { return [] }
            let first = requests / 10
            return (0..<count).map { _ in random.next(in: first...(requests - 1)) }.sorted()
        }
        memoryWarnings = schedule(max(1, requests / 20_000), &random)
        backgrounds = schedule(max(1, requests / 30_000), &random)
    }

    public mutating func next() -> Request? {
        while true {
            if pendingNext < pending.count {
                let row = pending[pendingNext]
                pendingNext += 1
                if row.operation == .get {
                    guard emitted < requests else { return nil }
                    emitted += 1
                }
                return row
            }
            guard emitted < requests else { return nil }
            pending.removeAll(keepingCapacity: true)
            pendingNext = 0
            step()
        }
    }

    /// Queues the rows of one step: due events, then one post view.
    private mutating func step() {
        while let due = memoryWarnings.first, due <= emitted {
            memoryWarnings.removeFirst()
            pending.append(Request(time: seconds, key: 0, size: 0, operation: .memoryWarning))
        }
        while let due = backgrounds.first, due <= emitted {
            backgrounds.removeFirst()
            pending.append(Request(time: seconds, key: 0, size: 0, operation: .background))
            milliseconds += Int64(random.next(in: 60_000...1_800_000))
        }
        milliseconds += Int64(random.next(in: 50...350))
        let post: Int
        if !recent.isEmpty && random.chance(revisit) {
            post = recent[Int(random.next(below: UInt64(recent.count)))]
        } else {
            post = posts.next(using: &random)
        }
        remember(post)
        let featured = attribute(post, 1) % 5 == 0
        pending.append(get(UInt64(post), featured ? Self.featuredThumbnail : Self.thumbnail))
        if random.chance(Self.openProbability) {
            milliseconds += Int64(random.next(in: 100...400))
            let author = authors.rank(forUnit: Double(attribute(post, 3) >> 11) * 0x1.0p-53)
            pending.append(get(2_000_000 + UInt64(author), Self.avatar))
            let height = Self.fullWidthHeights[Int(attribute(post, 2) % 3)]
            pending.append(get(1_000_000 + UInt64(post), 4 * 1170 * height))
        }
    }

    private var seconds: Double { Double(milliseconds) / 1000 }

    private func get(_ key: UInt64, _ size: Int) -> Request {
        Request(time: seconds, key: key, size: size, operation: .get)
    }

    /// A fixed pseudo-random attribute of a post (its shape, its author), from the seed.
    private func attribute(_ post: Int, _ which: UInt64) -> UInt64 {
        SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(post) &* 4 &+ which))
    }

    private mutating func remember(_ post: Int) {
        if recent.count < Self.recentCapacity {
            recent.append(post)
        } else {
            recent[recentNext] = post
            recentNext = (recentNext + 1) % Self.recentCapacity
        }
    }
}
