import ObjectGraph

/// A class ObjectGraphTests declares too, under the same name: the class-lookup tests' bare class name
/// that two modules declare (`EngineTestSupport.LookupTwin`, `ObjectGraphTests.LookupTwin`). Nothing
/// else uses it.
public final class LookupTwin: NSManagedObject {}
