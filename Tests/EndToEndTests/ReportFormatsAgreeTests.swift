import Foundation
import Testing
import TestSupport

/// Every format of a report says what JSON says: no ratio rounded to an end it is not at, no
/// undefined ratio shown as a measured 0, no admission rule or count limit left out.
@Suite("report formats agree with the JSON")
struct ReportFormatsAgreeTests {
    /// One key requested `rows` times: one miss, then hits.
    static func oneKey(_ rows: Int) throws -> String {
        var text = "timestamp,key,size\n"
        for row in 0..<rows { text += "\(row),7,100\n" }
        return try temporaryFile(text)
    }

    @Test("one miss in 30,001 requests is not a 100 % hit ratio, nor one hit a 0 % one; JSON's miss ratio is misses over requests")
    func ratiosNearTheEnds() throws {
        let trace = try Self.oneKey(30_001)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let table = try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "10", "--ignore-size"])
        #expect(table.status == 0 && table.stdout.contains("99.997 %") && !table.stdout.contains("100.00 %"), "\(table.stdout)")
        for format in ["table", "markdown"] {
            let compare = try CLI.run(["compare", trace, "--policies", "lru,fifo", "--capacities", "10", "--ignore-size", "--format", format])
            #expect(compare.status == 0 && compare.stdout.contains("99.997") && !compare.stdout.contains("100.00"), "\(compare.stdout)")
        }
        let json = try #require(try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "10", "--ignore-size", "--format", "json"]).json)
        #expect(json["missRatio"] as? Double == 1.0 / 30_001.0)
        // Capacity 0 objects is refused, so one hit in many: a trace of distinct keys but one.
        var text = "timestamp,key,size\n"
        for row in 0..<30_000 { text += "\(row),\(row),100\n" }
        text += "30000,29999,100\n"
        let distinct = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: distinct) }
        let rare = try CLI.run(["replay", distinct, "--policy", "lru", "--capacity", "10", "--ignore-size"])
        #expect(rare.status == 0 && rare.stdout.contains("0.003 %") && !rare.stdout.contains("0.00 %"), "\(rare.stdout)")
        let csv = try CLI.run(["replay", distinct, "--policy", "lru", "--capacity", "10", "--ignore-size", "--format", "csv"])
        #expect(csv.status == 0 && csv.stdout.contains(",0.000033,") && csv.stdout.contains(",0.999967,"), "\(csv.stdout)")
    }

    @Test("a trace of sets and deletes reports them in CSV and Markdown as in JSON; a trace of gets keeps the contract's columns")
    func operationColumns() throws {
        let trace = try temporaryFile("timestamp,key,size,op\n1,1,10,set\n2,2,10,set\n3,1,0,delete\n4,3,10,set\n")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let json = try #require(try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "1", "--ignore-size", "--format", "json"]).json)
        #expect(json["sets"] as? Int == 3 && json["deletes"] as? Int == 1 && json["requests"] as? Int == 0)
        let csv = try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "1", "--ignore-size", "--format", "csv"]).stdout
        let lines = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first), row = try #require(lines.dropFirst().first)
        let sets = try #require(header.firstIndex(of: "sets")), deletes = try #require(header.firstIndex(of: "deletes"))
        #expect(row[sets] == "3" && row[deletes] == "1" && header.contains("events"))
        let markdown = try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "1", "--ignore-size", "--format", "markdown"]).stdout
        #expect(markdown.contains("| sets | deletes | events |") && markdown.contains("| simulation | 3 | 1 | 0 |"), "\(markdown)")
        let gets = try CLI.run(["replay", Repository.trace("zipf.csv"), "--policy", "lru", "--capacity", "10", "--ignore-size", "--format", "csv"]).stdout
        #expect(!(gets.split(separator: "\n").first ?? "").contains("sets"))
    }

    @Test("replay's JSON carries the warnings it prints on standard error, and has no such field without them")
    func warningsInJSON() throws {
        let trace = Repository.trace("zipf.csv")
        let refused = try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "1", "--format", "json"])
        let warnings = try #require(refused.json?["warnings"] as? [String])
        #expect(warnings.count == 1 && warnings[0].contains("cached nothing") && refused.stderr.contains(warnings[0]), "\(refused.stderr)")
        let plain = try #require(try CLI.run(["replay", trace, "--policy", "lru", "--capacity", "1MiB", "--format", "json"]).json)
        #expect(plain["warnings"] == nil)
    }

    @Test("analyze shows a ratio of nothing as n/a in every text format, as JSON's null")
    func undefinedRatios() throws {
        let trace = try temporaryFile("timestamp,key,size,op\n1,1,10,set\n2,2,10,set\n3,1,0,delete\n")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        for format in ["table", "markdown", "csv"] {
            let result = try CLI.run(["analyze", trace, "--format", format])
            #expect(result.status == 0, "\(result.stderr)")
            let line = result.stdout.split(separator: "\n").first { $0.contains("compulsory miss ratio") }.map(String.init) ?? ""
            #expect(line.contains("n/a") && !line.contains(" 0 ") && !line.hasSuffix("0"), "\(format): \(line)")
        }
    }

    @Test("compare's table and Markdown, and mrc's every format, carry the admission rule with its counts, and the count limit")
    func admissionAndCountLimit() throws {
        let trace = Repository.trace("zipf.csv")
        let json = try #require(try CLI.run(["compare", trace, "--policies", "lru,fifo", "--capacities", "5%", "--admission", "size",
                                             "--admission-option", "size=30000", "--format", "json"]).json)
        let results = try #require(json["results"] as? [[String: Any]])
        let lru = try #require(results.first { $0["policy"] as? String == "lru" }?["admission"] as? [String: Any])
        let admitted = try #require(lru["admitted"] as? Int), rejected = try #require(lru["rejected"] as? Int)
        #expect(admitted > 0 && rejected > 0)
        for format in ["table", "markdown"] {
            let text = try CLI.run(["compare", trace, "--policies", "lru,fifo", "--capacities", "5%", "--admission", "size",
                                    "--admission-option", "size=30000", "--format", format]).stdout
            #expect(text.contains("admission: size") && text.contains("\(admitted) / \(rejected)"), "\(format): \(text)")
        }
        for format in ["table", "markdown", "csv"] {
            let text = try CLI.run(["mrc", trace, "--policy", "fifo", "--sample", "1", "--capacities", "5%", "--admission", "size",
                                    "--admission-option", "size=30000", "--format", format]).stdout
            #expect(text.contains("admitted") && text.contains("size"), "\(format): \(text)")
        }
        let plain = try CLI.run(["compare", trace, "--policies", "lru,fifo", "--capacities", "5%"]).stdout
        #expect(!plain.contains("admission") && !plain.contains("count limit"))
        let limited = try CLI.run(["compare", Repository.trace("image-feed.csv"), "--policies", "nscache,yy-lru", "--count-limit", "100"])
        #expect(limited.status == 0 && limited.stdout.contains("count limit: 100 objects"), "\(limited.stdout)\(limited.stderr)")
    }
}
