import OrderedJSON
import Testing

/// JSONObject: order kept, removal, equality and hashing that ignore order, lookups by path.
struct ObjectTests {
    @Test(arguments: [3, 40])
    func insertionOrderIsKeptAcrossRemoval(count: Int) {
        var object = JSONObject()
        for number in (0..<count).reversed() { object["k\(number)"] = .int(Int64(number)) }
        object["k1"] = nil
        object["k2"] = "replaced"
        object["k1"] = true
        let expected = (0..<count).reversed().map { "k\($0)" }.filter { $0 != "k1" } + ["k1"]
        #expect(object.keys == expected)
        #expect(object.map(\.key) == expected)
        #expect(object["k2"] == "replaced" && object["k1"] == true && object.count == count)
    }

    @Test func equalityAndHashIgnoreOrder() {
        let forward: JSONValue = ["a": 1, "b": [true]]
        let backward: JSONValue = ["b": [true], "a": 1]
        #expect(forward == backward)
        #expect(Set([forward, backward]).count == 1)
        #expect(forward != ["a": 1, "b": [false]])
        #expect(forward != ["a": 1])
    }

    @Test func pathLookupWalksObjectsAndArrays() {
        let value: JSONValue = ["ndef": ["records": [["text": "hi"]]]]
        #expect(value.value(atPath: "ndef.records.0.text") == "hi")
        #expect(value.value(atPath: "ndef.records.1.text") == nil)
        #expect(value.value(atPath: "ndef.records.x") == nil)
    }
}
