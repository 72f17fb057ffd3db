#!/usr/bin/env python3
"""Writes the Trips fixture: a two-version model (Trips.xcdatamodeld) and mapping models between its
versions in Xcode's .xcmappingmodel format (xcmapping.xml, Core Data's XML store format, with value
expressions as NSKeyedArchiver archives of NSExpression laid out as in the archives Xcode wrote in
alemar11/CoreDataPlus's V2toV3.xcmappingmodel). Run it from this folder; the files are committed."""
import base64
import os
import plistlib

# --- archived NSExpressions -------------------------------------------------------------------------

CLASSES = {
    "NSFunctionExpression": ["NSFunctionExpression", "NSExpression", "NSObject"],
    "NSVariableExpression": ["NSVariableExpression", "NSExpression", "NSObject"],
    "NSConstantValueExpression": ["NSConstantValueExpression", "NSExpression", "NSObject"],
    "NSKeyPathSpecifierExpression": ["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"],
    "NSKeyPathExpression": ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"],
    "NSSubqueryExpression": ["NSSubqueryExpression", "NSExpression", "NSObject"],
    "NSArray": ["NSArray", "NSObject"],
}


class Archive:
    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def cls(self, name):
        if name not in self.classes:
            self.classes[name] = self.add({"$classname": name, "$classes": CLASSES[name]})
        return self.classes[name]

    def variable(self, name):
        return self.add({"NSVariable": self.add(name), "NSExpressionType": 2, "$class": self.cls("NSVariableExpression")})

    def constant(self, value):
        stored = self.add(value) if isinstance(value, str) else value
        return self.add({"NSConstantValue": stored, "NSExpressionType": 0, "$class": self.cls("NSConstantValueExpression")})

    def array(self, items):
        return self.add({"NS.objects": items, "$class": self.cls("NSArray")})

    def key_path(self, variable, path):
        """$variable.path, as NSExpression(format:) makes it: valueForKeyPath: of the variable."""
        specifier = self.add(
            {"$class": self.cls("NSKeyPathSpecifierExpression"), "NSExpressionType": 10, "NSKeyPath": self.add(path)})
        return self.add({
            "NSOperand": self.variable(variable), "NSSelectorName": self.add("valueForKeyPath:"),
            "NSExpressionType": 4, "NSArguments": self.array([specifier]), "$class": self.cls("NSKeyPathExpression")})

    def function(self, operand, selector, arguments):
        return self.add({
            "NSOperand": operand, "NSSelectorName": self.add(selector), "NSExpressionType": 4,
            "NSArguments": self.array(arguments), "$class": self.cls("NSFunctionExpression")})

    def data(self, root):
        archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": root}, "$objects": self.objects}
        return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY)


def expression(build):
    archive = Archive()
    root = build(archive)
    return base64.b64encode(archive.data(root)).decode()


def key_path(path):
    return expression(lambda a: a.key_path("source", path))


def constant(value):
    return expression(lambda a: a.constant(value))


def instances(mapping, path):
    return expression(lambda a: a.function(
        a.variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
        [a.constant(mapping), a.key_path("source", path)]))


# --- xcmapping.xml --------------------------------------------------------------------------------

class Mapping:
    def __init__(self):
        self.lines = []
        self.next = 1

    def id(self):
        identifier = "z%d" % self.next
        self.next += 1
        return identifier

    @staticmethod
    def attribute(name, kind, value):
        return '        <attribute name="%s" type="%s">%s</attribute>' % (name, kind, value)

    def property(self, kind, owner, name, **fields):
        identifier = self.id()
        lines = ['    <object type="%s" id="%s">' % (kind, identifier)]
        if "expression" in fields:
            lines.append(self.attribute("valueexpressiondata", "binary", fields["expression"]))
        if "keypath" in fields:
            lines.append(self.attribute("sourcekeypath", "string", fields["keypath"]))
        if "mapping" in fields:
            lines.append(self.attribute("sourcemappingname", "string", fields["mapping"]))
        lines.append(self.attribute("autogenerateexpression", "bool", 1))
        lines.append(self.attribute("name", "string", name))
        lines.append('        <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="%s">'
                     '</relationship>' % owner)
        lines.append("    </object>")
        self.lines += lines
        return identifier

    def write(self, folder, entities):
        model = "z999"
        mappings = []
        for number, (source, destination, attributes, relationships) in enumerate(entities, start=1):
            identifier = self.id()
            mappings.append(identifier)
            attribute_ids = [self.property("XDDEVATTRIBUTEMAPPING", identifier, name, **fields)
                             for name, fields in attributes]
            relationship_ids = [self.property("XDDEVRELATIONSHIPMAPPING", identifier, name, **fields)
                                for name, fields in relationships]
            self.lines += [
                '    <object type="XDDEVENTITYMAPPING" id="%s">' % identifier,
                self.attribute("sourcename", "string", source),
                self.attribute("mappingtypename", "string", "Undefined"),
                self.attribute("mappingnumber", "int16", number),
                self.attribute("destinationname", "string", destination),
                self.attribute("autogenerateexpression", "bool", 1),
                '        <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="%s">'
                '</relationship>' % model,
                '        <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" '
                'idrefs="%s"></relationship>' % " ".join(attribute_ids),
                '        <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" '
                'idrefs="%s"></relationship>' % " ".join(relationship_ids),
                "    </object>",
            ]
        self.lines += [
            '    <object type="XDDEVMAPPINGMODEL" id="%s">' % model,
            self.attribute("sourcemodelpath", "string", "Trips/Trips.xcdatamodeld/Trips.xcdatamodel"),
            self.attribute("destinationmodelpath", "string", "Trips/Trips.xcdatamodeld/Trips 2.xcdatamodel"),
            '        <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="%s">'
            '</relationship>' % " ".join(mappings),
            "    </object>",
        ]
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "xcmapping.xml"), "w") as out:
            out.write('<?xml version="1.0" standalone="yes"?>\n')
            out.write('<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">\n\n<database>\n')
            out.write("\n".join(self.lines) + "\n</database>\n")


def trips_mapping(person_note):
    return [
        ("Traveller", "Person",
         [("name", {}),
          ("note", {"expression": person_note}),
          ("rank", {"expression": constant(7)}),
          ("countryCount", {"expression": key_path("countries.@count")}),
          ("totalPopulation", {"expression": key_path("countries.@sum.population")}),
          ("averagePopulation", {"expression": key_path("countries.@avg.population")}),
          ("smallest", {"expression": key_path("countries.@min.population")}),
          ("largest", {"expression": key_path("countries.@max.population")})],
         [("visited", {"keypath": "countries", "mapping": "CountryToPlace"}),
          ("moods", {"expression": instances("MoodToMood", "countries.@distinctUnionOfSets.moods")}),
          ("continents", {"expression": instances("ContinentToContinent", "countries.@distinctUnionOfObjects.continent")})]),
        ("Country", "Place",
         [("name", {}), ("population", {})],
         [("visitors", {"keypath": "travellers"}), ("moods", {}), ("continent", {})]),
        ("Mood", "Mood", [("label", {})], [("places", {"keypath": "countries", "mapping": "CountryToPlace"})]),
        ("Continent", "Continent", [("name", {})], [("places", {"keypath": "countries"})]),
    ]


if __name__ == "__main__":
    Mapping().write("TripsToTrips2.xcmappingmodel", trips_mapping(constant("imported")))
    unknown = expression(lambda a: a.function(a.variable("source"), "reversedName:", [a.constant("x")]))
    Mapping().write("Refused/UnknownSelector.xcmappingmodel", trips_mapping(unknown))
    subquery = expression(lambda a: a.add({"NSExpressionType": 13, "$class": a.cls("NSSubqueryExpression")}))
    Mapping().write("Refused/Subquery.xcmappingmodel", trips_mapping(subquery))
