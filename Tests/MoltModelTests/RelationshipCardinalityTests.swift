import MoltModel
import Testing

@Suite("How many objects a relationship may hold (Core Data's rule)")
struct RelationshipCardinalityTests {
    static func toMany(optional: Bool, min: Int = 0, max: Int = 0) -> Relationship {
        Relationship(
            name: "sections", destinationEntityName: "Section", isToMany: true, isOptional: optional, minCount: min,
            maxCount: max)
    }

    static func toOne(optional: Bool) -> Relationship {
        Relationship(name: "post", destinationEntityName: "Post", isOptional: optional)
    }

    @Test("a non-optional to-many without a minCount may be empty; with one it needs that many")
    func nonOptionalToMany() {
        let plain = Self.toMany(optional: false)
        #expect(plain.allowsNoObjects)
        #expect(plain.countProblem(0) == nil)
        #expect(plain.countProblem(7) == nil)
        let atLeastTwo = Self.toMany(optional: false, min: 2)
        #expect(atLeastTwo.requiresObjects)
        #expect(atLeastTwo.countProblem(0) == .tooFew(minimum: 2))
        #expect(atLeastTwo.countProblem(1) == .tooFew(minimum: 2))
        #expect(atLeastTwo.countProblem(2) == nil)
    }

    @Test("an optional to-many may be empty even below its minCount, but a value it holds must meet the counts")
    func optionalToMany() {
        let bounded = Self.toMany(optional: true, min: 2, max: 3)
        #expect(bounded.allowsNoObjects)
        #expect(bounded.countProblem(0) == nil)
        #expect(bounded.countProblem(1) == .tooFew(minimum: 2))
        #expect(bounded.countProblem(3) == nil)
        #expect(bounded.countProblem(4) == .tooMany(maximum: 3))
    }

    @Test("a non-optional to-one needs its object; an optional one may have none")
    func toOne() {
        #expect(Self.toOne(optional: false).countProblem(0) == .missing)
        #expect(Self.toOne(optional: false).countProblem(1) == nil)
        #expect(Self.toOne(optional: false).requiresObjects)
        #expect(Self.toOne(optional: true).countProblem(0) == nil)
    }

    @Test("a rule is stricter when it may no longer be empty or a value needs more objects")
    func stricter() {
        let plain = Self.toMany(optional: false)
        #expect(
            !plain.isStricter(than: Self.toMany(optional: true)), "non-optional without a minCount: still may be empty")
        #expect(Self.toMany(optional: false, min: 1).isStricter(than: plain))
        #expect(Self.toMany(optional: true, min: 3).isStricter(than: Self.toMany(optional: true, min: 2)))
        #expect(!Self.toMany(optional: true, min: 1).isStricter(than: Self.toOne(optional: true)), "one object meets 1")
        #expect(Self.toOne(optional: false).isStricter(than: Self.toOne(optional: true)))
        #expect(!Self.toMany(optional: false).isStricter(than: Self.toOne(optional: false)))
    }
}
