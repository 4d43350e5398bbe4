import CacheBench
import Foundation
import Testing

@Suite("Report fields: CSV quoting, Markdown cells, JSON numbers")
struct ReportEscapingTests {
    @Test("a CSV field is quoted for a comma, a quote or any line break (LF, CR, CRLF), and only then")
    func csvQuoting() {
        #expect(ReplayReport.csvField("trace.csv") == "trace.csv")
        #expect(ReplayReport.csvField("a,b") == "\"a,b\"")
        #expect(ReplayReport.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(ReplayReport.csvField("a\nb") == "\"a\nb\"")
        #expect(ReplayReport.csvField("a\rb") == "\"a\rb\"")
        #expect(ReplayReport.csvField("a\r\nb") == "\"a\r\nb\"")
    }

    @Test("a Markdown cell escapes | and writes each line break as <br>, so a row stays one line")
    func markdownCells() {
        #expect(ReplayReport.markdownCell("plain") == "plain")
        #expect(ReplayReport.markdownCell("a|b") == "a\\|b")
        #expect(ReplayReport.markdownCell("a\nb\rc\r\nd") == "a<br>b<br>c<br>d")
        let cell = ReplayReport.markdownCell("x\ny|z\r")
        #expect(!cell.contains { $0.isNewline })
    }

    @Test("a Markdown cell shows a name as it is: links, emphasis, code, HTML, escapes and math escaped")
    func markdownCellsShowMarkupAsText() {
        #expect(ReplayReport.markdownCell("[x](y).csv") == #"\[x\](y).csv"#)
        #expect(ReplayReport.markdownCell("star*_md_.csv") == #"star\*\_md\_.csv"#)
        #expect(ReplayReport.markdownCell("bq`tick`.csv") == #"bq\`tick\`.csv"#)
        #expect(ReplayReport.markdownCell(#"end\.csv"#) == #"end\\.csv"#)
        // A backslash before a bar stays a backslash: both are escaped, so the cell does not end.
        #expect(ReplayReport.markdownCell(#"a\|b.csv"#) == #"a\\\|b.csv"#)
        #expect(ReplayReport.markdownCell("<b>&amp;~~x~~ $1$") == #"\<b\>\&amp;\~\~x\~\~ \$1\$"#)
        // A combining mark after `*` makes one character, still read as emphasis: escaped too.
        #expect(ReplayReport.markdownCell("*\u{301}x*") == "\\*\u{301}x\\*")
        // What no renderer reads as markup is left alone: numbers, units, dashes, dots.
        #expect(ReplayReport.markdownCell("12.5 % (1.2 MiB) lirs-2_pools") == #"12.5 % (1.2 MiB) lirs-2\_pools"#)
        #expect(ReplayReport.markdownCell("0.2768") == "0.2768")
    }

    @Test("a Markdown code span outlasts any backticks in the name, and shows line breaks and controls as escapes")
    func markdownCode() {
        #expect(ReplayReport.markdownCode("Traces/zipf.csv") == "`Traces/zipf.csv`")
        #expect(ReplayReport.markdownCode("a|b") == "`a|b`")
        #expect(ReplayReport.markdownCode("x`w") == "``x`w``")
        #expect(ReplayReport.markdownCode("a``b`") == "``` a``b` ```")
        #expect(ReplayReport.markdownCode("x\u{1}y|z`w\nq.csv") == "``x\\u{1}y|z`w\\u{A}q.csv``")
    }

    @Test("a table shows control characters (but a tab) in a trace's name as escapes, and other text as it is")
    func displayText() {
        #expect(ReplayReport.displayText("Traces/zipf.csv") == "Traces/zipf.csv")
        #expect(ReplayReport.displayText("a\rb\u{1B}[2Jc") == "a\\u{D}b\\u{1B}[2Jc")
        #expect(ReplayReport.displayText("café\tx\u{7F}") == "café\tx\\u{7F}")
    }

    @Test("a JSON double keeps its fraction when whole: typed readers see 0 and 1 ratios as numbers with a point")
    func jsonWholeDoubles() throws {
        #expect(JSONValue.double(0).serialized() == "0.0")
        #expect(JSONValue.double(1).serialized() == "1.0")
        #expect(JSONValue.double(-3).serialized() == "-3.0")
        #expect(JSONValue.double(0.25).serialized() == "0.25")
        #expect(JSONValue.int(1).serialized() == "1")
        #expect(JSONValue.double(.nan).serialized() == "null")
        // Foundation reads them back as the numbers they are.
        let parsed = try JSONSerialization.jsonObject(with: Data(JSONValue.array([.double(1), .double(0.5)]).serialized().utf8))
        #expect((parsed as? [Double]) == [1, 0.5])
        #expect(JSONValue.parse(JSONValue.double(2).serialized()[...])?.doubleValue == 2)
    }
}
