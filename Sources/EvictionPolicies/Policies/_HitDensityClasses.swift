/// LHD's model of hit density (Beckmann, Chen and Cidon, "LHD: Improving cache hit rate by
/// maximizing hit density", NSDI'18), as libCacheSim 0.3.5's `LHD/lhd.cpp` keeps it: for each
/// class of objects, how many hits and how many evictions happened at each (coarsened) age, and
/// from those the expected hits per unit of space-time an object of that class and age will
/// still earn.
///
/// A class is the log-scaled sum of an object's last two hit ages (`hitAgeClass`). libCacheSim
/// keeps 16 application classes of 16 such classes each, but every request carries its one
/// default application, so only application class 1 is ever used; this model keeps those 16
/// classes (1/16 of libCacheSim's 61 MB of tables) and numbers them as libCacheSim does where
/// the number matters (the initial densities).
///
/// All arithmetic is `Float`, as libCacheSim's `rank_t`.
///
/// - Complexity: ``density(hitAges:age:)`` and the recording steps are O(1);
///   ``reconfigure(residents:reconfigurations:)`` is O(classes × ``maximumAge``), once per
///   2^20 accesses.
@usableFromInline
struct _HitDensityClasses {
    /// Ages at and above this are all one (libCacheSim's `MAX_AGE`).
    @usableFromInline static var maximumAge: Int { 20_000 }
    /// Classes by hit age (`HIT_AGE_CLASSES`).
    @usableFromInline static var classCount: Int { 16 }
    /// The application class every request falls in (`DEFAULT_APP_ID % APP_CLASSES`).
    @usableFromInline static var applicationClass: Int { 1 }
    @usableFromInline static var decay: Float { 0.9 }

    /// Per class, per age: hits and evictions seen (decayed at each reconfiguration), and the
    /// modelled hit density. Index `class * maximumAge + age`.
    @usableFromInline var hits: ContiguousArray<Float>
    @usableFromInline var evictions: ContiguousArray<Float>
    @usableFromInline var densities: ContiguousArray<Float>
    /// How many bits an age is shifted right by (`ageCoarseningShift`), tuned at the 6th and
    /// 26th reconfiguration from the number of resident objects.
    @usableFromInline var ageShift = 10
    @usableFromInline var ewmaObjects: Float = 0
    @usableFromInline var ewmaObjectsMass: Float = 0

    /// A fresh model. The tables start as shared copies of one zeroed table and one initial
    /// density table (copied on first write), so a cache costs little until it sees traffic.
    @usableFromInline init() {
        hits = Self.zeros
        evictions = Self.zeros
        densities = Self.initialDensities
    }

    static let zeros = ContiguousArray<Float>(repeating: 0, count: classCount * maximumAge)

    /// libCacheSim's starting guess, GDSF-like: (global class number + 1) / (age + 1).
    static let initialDensities: ContiguousArray<Float> = {
        var densities = ContiguousArray<Float>(repeating: 0, count: classCount * maximumAge)
        for c in 0..<classCount {
            let number = Double(applicationClass * classCount + c + 1)
            for a in 0..<maximumAge {
                densities[c * maximumAge + a] = Float(number / Double(a + 1))
            }
        }
        return densities
    }()

    /// The class of an object whose last two hit ages sum to `hitAges`: about log2(maximumAge /
    /// hitAges), so objects hit again sooner land in higher classes; 15 for a sum of 0.
    @inlinable
    static func hitAgeClass(_ hitAges: UInt64) -> Int {
        if hitAges == 0 { return classCount - 1 }
        var age = hitAges, log = 0
        while age < UInt64(maximumAge) && log < classCount - 1 {
            age <<= 1
            log += 1
        }
        return log
    }

    /// The coarsened age of an access made at `stamp`, now `now`: `maximumAge - 1` at most.
    @inlinable
    func age(now: UInt64, stamp: UInt64) -> Int {
        let age = (now &- stamp) >> UInt64(ageShift)
        return age >= UInt64(Self.maximumAge) ? Self.maximumAge - 1 : Int(age)
    }

    /// The modelled hit density (per unit of size) of class `hitAges` at `age`.
    @inlinable
    func density(hitAges: UInt64, age: Int) -> Float {
        densities[Self.hitAgeClass(hitAges) * Self.maximumAge + age]
    }

    @inlinable
    mutating func recordHit(hitAges: UInt64, age: Int) {
        hits[Self.hitAgeClass(hitAges) * Self.maximumAge + age] += 1
    }

    @inlinable
    mutating func recordEviction(hitAges: UInt64, age: Int) {
        evictions[Self.hitAgeClass(hitAges) * Self.maximumAge + age] += 1
    }

    /// libCacheSim's `reconfigure`: decays the counts, re-tunes the age coarsening (at the 6th
    /// and 26th time, `reconfigurations` being 5 or 25) and rebuilds the densities.
    @usableFromInline @inline(never)
    mutating func reconfigure(residents: Int, reconfigurations: Int) {
        for i in hits.indices {
            hits[i] *= Self.decay
            evictions[i] *= Self.decay
        }
        adaptAgeCoarsening(residents: residents, reconfigurations: reconfigurations)
        modelDensities()
    }

    mutating func adaptAgeCoarsening(residents: Int, reconfigurations: Int) {
        ewmaObjects = ewmaObjects * Self.decay + Float(residents)
        ewmaObjectsMass = ewmaObjectsMass * Self.decay + 1
        let objects = ewmaObjects / ewmaObjectsMass
        // AGE_COARSENING_ERROR_TOLERANCE = 0.01
        let optimal = Double(objects) / (0.01 * Double(Self.maximumAge))
        guard reconfigurations == 5 || reconfigurations == 25 else { return }
        var shift = 1
        while Double(1 << shift) < optimal && shift < 62 { shift += 1 }
        let delta = shift - ageShift
        ageShift = shift
        // A heavier history delays the next shift.
        ewmaObjects *= 8
        ewmaObjectsMass *= 8
        let m = Self.maximumAge
        for c in 0..<Self.classCount {
            let base = c * m
            if delta < 0 {
                // Stretch: everything beyond the new range folds into the last age.
                let stretch = Swift.min(-delta, 62)
                if (m >> stretch) < m - 1 {
                    for a in (m >> stretch)..<(m - 1) {
                        hits[base + m - 1] += hits[base + a]
                        evictions[base + m - 1] += evictions[base + a]
                    }
                }
                let scale = Float(Double(UInt64(1) << UInt64(stretch)))
                for a in stride(from: m - 2, through: 0, by: -1) {
                    hits[base + a] = hits[base + (a >> stretch)] / scale
                    evictions[base + a] = evictions[base + (a >> stretch)] / scale
                }
            } else if delta > 0 {
                // Compress: 2^delta old ages make one new age.
                let width = 1 << Swift.min(delta, 62)
                for a in 0..<(m >> delta) {
                    var h = hits[base + a * width], e = evictions[base + a * width]
                    for i in 1..<width {
                        h += hits[base + a * width + i]
                        e += evictions[base + a * width + i]
                    }
                    hits[base + a] = h
                    evictions[base + a] = e
                }
                if (m >> delta) < m - 1 {
                    for a in (m >> delta)..<(m - 1) {
                        hits[base + a] = 0
                        evictions[base + a] = 0
                    }
                }
            }
        }
    }

    /// The expected hits over the expected remaining lifetime, from each age on, computed in one
    /// pass from the oldest age down (libCacheSim's `modelHitDensity`). The last age keeps its
    /// density.
    mutating func modelDensities() {
        let m = Self.maximumAge
        for c in 0..<Self.classCount {
            let base = c * m
            var events = hits[base + m - 1] + evictions[base + m - 1]
            var totalHits = hits[base + m - 1]
            var lifetime = events
            for a in stride(from: m - 2, through: 0, by: -1) {
                totalHits += hits[base + a]
                events += hits[base + a] + evictions[base + a]
                lifetime += events
                densities[base + a] = events > 1e-5 ? totalHits / lifetime : 0
            }
        }
    }
}
