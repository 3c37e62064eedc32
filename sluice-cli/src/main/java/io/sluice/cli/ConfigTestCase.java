package io.sluice.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One case of a {@code sluice test} file: a name, the messages fed in, and what must come out.
 *
 * @param name the case's {@code Name}, printed with PASS or FAIL
 * @param inputs its {@code Input} (one mapping or a list)
 * @param expectations its {@code Expect} (one mapping or a list)
 */
record ConfigTestCase(String name, List<TestInput> inputs, List<TestExpectation> expectations) {

    /** A {@code Tests} item. */
    static ConfigTestCase parse(TestFileNode item) {
        String name = item.required("Name");
        TestFileNode n = item.at(item.where() + " '" + name + "'").only("Name", "Input", "Expect");
        String where = n.where();
        List<TestInput> inputs = new ArrayList<>();
        List<Object> in = n.items("Input");
        for (int i = 0; i < in.size(); i++) {
            inputs.add(TestInput.parse(TestFileNode.of(in.get(i), where + ", Input[" + i + "]")));
        }
        List<TestExpectation> expectations = new ArrayList<>();
        List<Object> ex = n.items("Expect");
        for (int i = 0; i < ex.size(); i++) {
            expectations.add(TestExpectation.parse(TestFileNode.of(ex.get(i), where + ", Expect[" + i + "]")));
        }
        if (inputs.isEmpty() || expectations.isEmpty()) {
            throw n.error("a test needs an Input and an Expect");
        }
        return new ConfigTestCase(name, List.copyOf(inputs), List.copyOf(expectations));
    }
}
