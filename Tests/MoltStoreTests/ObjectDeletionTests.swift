import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite("Deleting objects applies each relationship's delete rule, as Core Data does")
struct ObjectDeletionTests {
    let folder = TemporaryDirectory()

    /// A team owns projects (Cascade), a project owns tasks (Cascade); a person leads projects
    /// (Deny while any remain), belongs to teams (many-to-many, Nullify), has an ordered list of
    /// tasks (Nullify) and a desk (one-to-one, No Action from the person's side).
    static let model = """
        <entity name="Team" representedClassName="Team" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="members" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="teams" inverseEntity="Person"/>
            <relationship name="projects" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Project" inverseName="team" inverseEntity="Project"/>
        </entity>
        <entity name="Project" representedClassName="Project" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="lead" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="leads" inverseEntity="Person"/>
            <relationship name="tasks" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Task" inverseName="project" inverseEntity="Task"/>
            <relationship name="team" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Team" inverseName="projects" inverseEntity="Team"/>
        </entity>
        <entity name="Task" representedClassName="Task" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="assignee" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="tasks" inverseEntity="Person"/>
            <relationship name="project" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Project" inverseName="tasks" inverseEntity="Project"/>
        </entity>
        <entity name="Person" representedClassName="Person" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="desk" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Desk" inverseName="owner" inverseEntity="Desk"/>
            <relationship name="leads" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Project" inverseName="lead" inverseEntity="Project"/>
            <relationship name="tasks" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Task" inverseName="assignee" inverseEntity="Task"/>
            <relationship name="teams" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Team" inverseName="members" inverseEntity="Team"/>
        </entity>
        <entity name="Desk" representedClassName="Desk" syncable="YES">
            <attribute name="room" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="desk" inverseEntity="Person"/>
        </entity>
        """

    struct World {
        let store: ObjectStore
        let team: ObjectID, otherTeam: ObjectID
        let project: ObjectID, otherProject: ObjectID
        let tasks: [ObjectID]
        let ann: ObjectID, bo: ObjectID
        let desk: ObjectID
    }

    func world() throws -> World {
        let store = try TestStores.create(try TestStores.model(Self.model), in: folder)
        return try store.write { writer in
            func make(_ entity: String, _ name: String) throws -> ObjectID {
                try writer.insert(entity, attributes: [entity == "Desk" ? "room" : "name": .string(name)])
            }
            let team = try make("Team", "Core")
            let otherTeam = try make("Team", "Tools")
            let project = try make("Project", "Engine")
            let otherProject = try make("Project", "CLI")
            let tasks = try (1...3).map { try make("Task", "T\($0)") }
            let ann = try make("Person", "Ann")
            let bo = try make("Person", "Bo")
            let desk = try make("Desk", "4.12")
            try writer.setToMany(team, "projects", to: [project])
            try writer.setToMany(otherTeam, "projects", to: [otherProject])
            try writer.setToMany(project, "tasks", to: [tasks[0], tasks[1]])
            try writer.setToMany(otherProject, "tasks", to: [tasks[2]])
            try writer.setToMany(team, "members", to: [ann, bo])
            try writer.setToMany(otherTeam, "members", to: [bo])
            try writer.setToMany(bo, "tasks", to: [tasks[2], tasks[0], tasks[1]])
            try writer.setToOne(otherProject, "lead", to: ann)
            try writer.setToOne(bo, "desk", to: desk)
            return World(
                store: store, team: team, otherTeam: otherTeam, project: project, otherProject: otherProject,
                tasks: tasks, ann: ann, bo: bo, desk: desk)
        }
    }

    func links(_ store: ObjectStore, _ id: ObjectID, _ relationship: String) throws -> [ObjectID] {
        try #require(try store.object(id)).relationships[relationship]?.objectIDs ?? []
    }

    @Test("Cascade deletes the owned objects, and theirs; Nullify clears the other sides")
    func cascadeAndNullify() throws {
        let w = try world()
        let deleted = try w.store.write { try $0.delete([w.team]) }
        #expect(deleted == [w.team, w.project, w.tasks[0], w.tasks[1]])
        for id in deleted { #expect(try w.store.object(id) == nil) }
        #expect(try links(w.store, w.bo, "tasks") == [w.tasks[2]], "the ordered list closed up")
        #expect(try links(w.store, w.bo, "teams") == [w.otherTeam], "the join rows went, both ways")
        #expect(try links(w.store, w.ann, "teams") == [])
        #expect(try links(w.store, w.otherTeam, "members") == [w.bo])
        #expect(try w.store.count(of: "Task") == 1)
        let joins = try w.store.store.connection.scalar("SELECT count(*) FROM Z_2TEAMS")?.integerValue
        #expect(joins == 1)
    }

    @Test("Deny refuses with 1600 while a related object stays, before changing anything")
    func deny() throws {
        let w = try world()
        let before = try ObjectsJSONExporter().exportString(w.store)
        let error = try #require(throws: MoltError.self) { try w.store.write { try $0.delete([w.ann]) } }
        #expect(error.code == .validationRelationshipDeniedDelete)
        #expect(error.code.name == "NSValidationRelationshipDeniedDeleteError")
        #expect(
            error.message
                == "Person/1 cannot be deleted: its relationship \"leads\" has the delete rule Deny and still holds an object (Project/2)"
        )
        #expect(error.property == "leads")
        #expect(try ObjectsJSONExporter().exportString(w.store) == before)
        // Deleted together with what it leads, the person goes (the project is going too).
        let deleted = try w.store.write { try $0.delete([w.ann, w.otherProject]) }
        #expect(Set(deleted) == [w.ann, w.otherProject, w.tasks[2]])
    }

    @Test("No Action leaves the other side's key as it was; Core Data leaves it to the app")
    func noAction() throws {
        let w = try world()
        try w.store.write { _ = try $0.delete([w.bo]) }
        let column = try w.store.store.connection.scalar("SELECT ZOWNER FROM ZDESK")?.integerValue
        #expect(column == w.bo.primaryKey, "the desk still names its deleted owner")
        #expect(try links(w.store, w.tasks[0], "assignee") == [], "Nullify relationships were cleared")
    }

    @Test("deleting an object that does not exist, or twice in one call, is handled")
    func missingAndRepeated() throws {
        let w = try world()
        let deleted = try w.store.write { try $0.delete([w.tasks[0], w.tasks[0]]) }
        #expect(deleted == [w.tasks[0]])
        let error = try #require(throws: MoltError.self) { try w.store.write { try $0.delete([w.tasks[0]]) } }
        #expect(error.message.contains("does not exist"), "\(error.message)")
    }
}
