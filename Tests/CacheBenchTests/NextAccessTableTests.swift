import CacheBench
import Foundation
import TestSupport
import Testing

@Suite("next-access first pass (offline policies on traces without the field)")
struct NextAccessTableTests {
    @Test("hand-worked: 1-based row indices; size-0 rows count but are never a target; set and delete end a chain")
    func handWorked() throws {
        // row  op      key size   next
        //  1   get     a   1      4   (row 2 is a size-0 get of a: skipped by the replay, not a target)
        //  2   get     a   0      -
        //  3   get     b   1      -   (b's next row is a set: it makes b resident without a miss)
        //  4   get     a   1      -   (a is deleted at row 6 before its next get)
        //  5   set     b   1      7   (a set has a next request of its own)
        //  6   delete  a   1      -
        //  7   get     b   1      -
        //  8   tick    -   -      -
        //  9   get     a   1      -
        let csv = """
        time,key,size,op
        1,a,1,get
        2,a,0,get
        3,b,1,get
        4,a,1,get
        5,b,1,set
        6,a,1,delete
        7,b,1,get
        8,,,tick
        9,a,1,get
        """
        let path = try temporaryFile(csv)
        let table = try NextAccessTable.build(TraceSpec(path: path))
        let never = Int64.max
        #expect(table.next == [4, never, never, never, 7, never, never, never, never])
    }

    @Test("on the CSV copy of cloudPhysicsIO it equals the oracleGeneral file's field, record for record")
    func matchesOracleGeneral() throws {
        let csv = TraceSpec(path: Repository.trace("cloudPhysicsIO.og.csv"),
                            columns: CSVColumns(time: 0, key: 1, size: 2, operation: nil))
        let table = try NextAccessTable.build(csv)
        var reader = try OracleGeneralReader(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))
        let fromFile = try readAll(&reader).map(\.nextAccess)
        #expect(table.count == 113_872)
        #expect(table.next == fromFile)
    }

    @Test("the annotating reader fills each row in order across batches")
    func annotates() throws {
        let rows = (0..<10_000).map { "\($0),\($0 % 7),1" }.joined(separator: "\n")
        let spec = TraceSpec(path: try temporaryFile("timestamp,key,size\n" + rows))
        let table = try NextAccessTable.build(spec)
        var reader = NextAccessAnnotatingReader(base: try spec.open(), table: table)
        let requests = try readAll(&reader)
        #expect(requests.count == 10_000)
        #expect(requests[0].nextAccess == 8 && requests[9_999].nextAccess == .max)
        #expect(requests.allSatisfy { $0.nextAccess == .max || requests[Int($0.nextAccess) - 1].key == $0.key })
        #expect(reader.providesNextAccess)
    }

    @Test("belady replays a CSV trace through the first pass and beats LRU")
    func beladyOnCSV() throws {
        let spec = TraceSpec(path: Repository.trace("lirs-ps.csv"))
        let belady = try Replay.run(ReplayJob(trace: spec, policy: "belady", capacity: 300, ignoreSize: true))
        let lru = try Replay.run(ReplayJob(trace: spec, policy: "lru", capacity: 300, ignoreSize: true))
        #expect(belady.requests == lru.requests)
        #expect(belady.misses < lru.misses)
    }
}
