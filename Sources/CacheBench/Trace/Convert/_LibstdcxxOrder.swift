/// The orders GCC's C++ standard library (libstdc++, GCC 12, which libCacheSim 0.3.5's traceConv
/// is built with) gives to the two things traceConv's lcs header depends on where values tie:
/// the iteration order of a `std::unordered_map` with integer keys, and the result of
/// `std::sort` (introsort, not stable). Reproducing them lets the "most common" lists of an lcs
/// header list equally common entries in traceConv's order, so the file is byte-identical.
///
/// Both are behaviour described here from the library's documented algorithms (prime bucket
/// counts with a maximum load factor of 1 and growth by 2; new nodes at the front of their
/// bucket, a new bucket's node at the front of the whole list; rehashing relinks nodes in list
/// order; introsort with a median-of-three pivot, a depth limit of 2·⌊log₂ n⌋ falling back to
/// heapsort, and a final insertion sort over runs of 16), checked against the library itself on
/// random inputs and against traceConv's files (Tests/Fixtures/traceconv).
enum _LibstdcxxOrder {
    /// libstdc++'s prime bucket counts from 17 up (as `_Prime_rehash_policy::_M_next_bkt` gives
    /// them; smaller requests use its table 2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13).
    static let primes: [UInt64] = [
        17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137,
        139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467,
        503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741,
        1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427,
        6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753,
        22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233,
        67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271, 136607, 147793, 159871, 172933,
        187091, 202409, 218971, 236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487,
        480881, 520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369, 1056323, 1142821,
        1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627, 2144977, 2320627, 2510653, 2716249,
        2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259, 5515729, 5967347, 6456007,
        6984629, 7556579, 8175383, 8844859, 9569143, 10352717, 11200489, 12117689, 13109983, 14183539,
        15345007, 16601593, 17961079, 19431899, 21023161, 22744717, 24607243, 26622317, 28802401, 31160981,
        33712729, 36473443, 39460231, 42691603, 46187573, 49969847, 54061849, 58488943, 63278561, 68460391,
        74066549, 80131819, 86693767, 93793069, 101473717, 109783337, 118773397, 128499677, 139022417,
        150406843, 162723577, 176048909, 190465427, 206062531, 222936881, 241193053, 260944219, 282312799,
        305431229, 330442829, 357502601, 386778277, 418451333, 452718089, 489790921, 529899637, 573292817,
        620239453, 671030513, 725980837, 785430967, 849749479, 919334987, 994618837, 1076067617, 1164186217,
        1259520799, 1362662261, 1474249943, 1594975441, 1725587117, 1866894511, 2019773507, 2185171673,
        2364114217, 2557710269, 2767159799, 2993761039, 3238918481, 3504151727, 3791104843, 4101556399,
        4294967291, 6442450933, 8589934583, 12884901857, 17179869143, 25769803693, 34359738337, 51539607367,
        68719476731, 103079215087, 137438953447, 206158430123, 274877906899, 412316860387, 549755813881,
        824633720731, 1099511627689, 1649267441579
    ]
    private static let smallBuckets: [UInt64] = [2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13]

    /// A `std::unordered_map` with an identity hash (`std::hash` of an integer), reduced to the
    /// order of its nodes: insert keys, then read ``keys`` in iteration order.
    struct UnorderedMap {
        private var bucketCount: UInt64 = 1
        private var nextResize: UInt64 = 0
        /// Node `i` holds `nodeKeys[i]`; `nextNode[i]` is the node after it (-1 at the end).
        private var nodeKeys: [UInt64] = []
        private var nextNode: [Int] = []
        private var first = -1
        /// For each bucket, the node before its first node (-2: the list head; -1: empty).
        private var beforeBucket: [Int] = [-1]
        private var index: [UInt64: Int] = [:]

        /// The node for `hash % buckets` (keys are their own hash).
        private func bucket(_ key: UInt64) -> Int { Int(key % bucketCount) }

        private mutating func nextBucketCount(_ n: UInt64) -> UInt64 {
            if n < UInt64(_LibstdcxxOrder.smallBuckets.count) {
                if n == 0 { return 1 }
                nextResize = _LibstdcxxOrder.smallBuckets[Int(n)]
                return nextResize
            }
            let primes = _LibstdcxxOrder.primes
            var low = 0, high = primes.count - 1
            while low < high {
                let mid = (low + high) / 2
                if primes[mid] < n { low = mid + 1 } else { high = mid }
            }
            nextResize = primes[low]
            return primes[low]
        }

        /// `reserve(n)`: room for `n` elements without rehashing.
        mutating func reserve(_ n: UInt64) {
            let saved = nextResize
            let wanted = nextBucketCount(max(UInt64(index.count) + 1, n))
            if wanted != bucketCount { rehash(wanted) } else { nextResize = saved }
        }

        /// Whether `key` is present.
        func contains(_ key: UInt64) -> Bool { index[key] != nil }

        /// Inserts `key` if absent, as `operator[]` does.
        mutating func insert(_ key: UInt64) {
            guard index[key] == nil else { return }
            let elements = UInt64(index.count)
            if elements + 1 > nextResize {
                let minimum = max(elements + 1, nextResize == 0 ? 11 : 0)
                if minimum >= bucketCount {
                    rehash(nextBucketCount(max(minimum + 1, bucketCount * 2)))
                } else {
                    nextResize = bucketCount
                }
            }
            let node = nodeKeys.count
            nodeKeys.append(key)
            nextNode.append(-1)
            index[key] = node
            let b = bucket(key)
            let before = beforeBucket[b]
            if before != -1 {
                let after = before == -2 ? first : nextNode[before]
                nextNode[node] = after
                if before == -2 { first = node } else { nextNode[before] = node }
            } else {
                nextNode[node] = first
                if first >= 0 { beforeBucket[bucket(nodeKeys[first])] = node }
                first = node
                beforeBucket[b] = -2
            }
        }

        private mutating func rehash(_ count: UInt64) {
            bucketCount = count
            beforeBucket = [Int](repeating: -1, count: Int(count))
            var p = first
            first = -1
            var headBucket = 0
            while p >= 0 {
                let next = nextNode[p]
                let b = bucket(nodeKeys[p])
                if beforeBucket[b] == -1 {
                    nextNode[p] = first
                    first = p
                    beforeBucket[b] = -2
                    if nextNode[p] >= 0 { beforeBucket[headBucket] = p }
                    headBucket = b
                } else {
                    let before = beforeBucket[b]
                    let after = before == -2 ? first : nextNode[before]
                    nextNode[p] = after
                    if before == -2 { first = p } else { nextNode[before] = p }
                }
                p = next
            }
        }

        /// The keys in iteration order.
        var keys: [UInt64] {
            var out: [UInt64] = []
            out.reserveCapacity(nodeKeys.count)
            var p = first
            while p >= 0 { out.append(nodeKeys[p]); p = nextNode[p] }
            return out
        }
    }

    /// `std::sort(a.begin(), a.end(), less)`: the same permutation libstdc++ produces.
    static func sort<T>(_ a: inout [T], by less: (T, T) -> Bool) {
        guard a.count > 1 else { return }
        introsort(&a, 0, a.count, depth: 2 * (Int.bitWidth - 1 - a.count.leadingZeroBitCount), less)
        if a.count > 16 {
            insertionSort(&a, 0, 16, less)
            for i in 16..<a.count { linearInsert(&a, i, less) }
        } else {
            insertionSort(&a, 0, a.count, less)
        }
    }

    private static func introsort<T>(_ a: inout [T], _ first: Int, _ last: Int, depth: Int, _ less: (T, T) -> Bool) {
        var last = last, depth = depth
        while last - first > 16 {
            if depth == 0 { heapsort(&a, first, last, less); return }
            depth -= 1
            // Median of (first + 1, middle, last - 1) moved to first, then an unguarded partition.
            let mid = first + (last - first) / 2
            let (x, y, z) = (first + 1, mid, last - 1)
            let median: Int
            if less(a[x], a[y]) {
                median = less(a[y], a[z]) ? y : (less(a[x], a[z]) ? z : x)
            } else {
                median = less(a[x], a[z]) ? x : (less(a[y], a[z]) ? z : y)
            }
            a.swapAt(first, median)
            var i = first + 1, j = last
            while true {
                while less(a[i], a[first]) { i += 1 }
                j -= 1
                while less(a[first], a[j]) { j -= 1 }
                if !(i < j) { break }
                a.swapAt(i, j)
                i += 1
            }
            introsort(&a, i, last, depth: depth, less)
            last = i
        }
    }

    private static func insertionSort<T>(_ a: inout [T], _ first: Int, _ last: Int, _ less: (T, T) -> Bool) {
        guard last - first > 1 else { return }
        for i in (first + 1)..<last {
            if less(a[i], a[first]) {
                let value = a[i]
                var k = i
                while k > first { a[k] = a[k - 1]; k -= 1 }
                a[first] = value
            } else {
                linearInsert(&a, i, less)
            }
        }
    }

    /// Moves `a[i]` down past every element it is less than (something smaller lies before it).
    private static func linearInsert<T>(_ a: inout [T], _ i: Int, _ less: (T, T) -> Bool) {
        let value = a[i]
        var hole = i
        while less(value, a[hole - 1]) { a[hole] = a[hole - 1]; hole -= 1 }
        a[hole] = value
    }

    /// The depth-limit fallback: make a heap of the range, then pop it element by element.
    private static func heapsort<T>(_ a: inout [T], _ first: Int, _ last: Int, _ less: (T, T) -> Bool) {
        let n = last - first
        guard n >= 2 else { return }
        var parent = (n - 2) / 2
        while true {
            adjustHeap(&a, first, parent, n, a[first + parent], less)
            if parent == 0 { break }
            parent -= 1
        }
        var end = last
        while end - first > 1 {
            end -= 1
            let value = a[end]
            a[end] = a[first]
            adjustHeap(&a, first, 0, end - first, value, less)
        }
    }

    private static func adjustHeap<T>(_ a: inout [T], _ base: Int, _ top: Int, _ length: Int, _ value: T, _ less: (T, T) -> Bool) {
        var hole = top, child = top
        while child < (length - 1) / 2 {
            child = 2 * (child + 1)
            if less(a[base + child], a[base + child - 1]) { child -= 1 }
            a[base + hole] = a[base + child]
            hole = child
        }
        if length & 1 == 0 && child == (length - 2) / 2 {
            child = 2 * (child + 1)
            a[base + hole] = a[base + child - 1]
            hole = child - 1
        }
        var parent = (hole - 1) / 2
        while hole > top && less(a[base + parent], value) {
            a[base + hole] = a[base + parent]
            hole = parent
            parent = (hole - 1) / 2
        }
        a[base + hole] = value
    }
}
