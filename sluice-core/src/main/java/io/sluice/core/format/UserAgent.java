package io.sluice.core.format;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A compact user agent parser for ProcessJSON's {@code agent} directive, following the field names and the
 * common cases of the Go library Gollum used (mssola/user_agent): Windows, macOS, Linux, Android and iOS
 * platforms; Edge, Opera, Chrome, Firefox and Safari browsers. Unknown agents give empty fields.
 */
final class UserAgent {
    static final String[] FIELDS = {"mozilla", "platform", "os", "localization", "engine", "engine_version",
        "browser", "version"};
    private static final Map<String, String> WINDOWS = new LinkedHashMap<>();

    static {
        WINDOWS.put("Windows NT 10.0", "Windows 10");
        WINDOWS.put("Windows NT 6.3", "Windows 8.1");
        WINDOWS.put("Windows NT 6.2", "Windows 8");
        WINDOWS.put("Windows NT 6.1", "Windows 7");
        WINDOWS.put("Windows NT 6.0", "Windows Vista");
        WINDOWS.put("Windows NT 5.1", "Windows XP");
    }

    private final Map<String, String> fields = new LinkedHashMap<>();

    private UserAgent() {
        for (String f : FIELDS) {
            fields.put(f, "");
        }
    }

    /** The value of one of {@link #FIELDS}, or null for an unknown field name. */
    String field(String name) {
        return fields.get(name);
    }

    static UserAgent parse(String ua) {
        UserAgent a = new UserAgent();
        List<String[]> sections = sections(ua);
        if (sections.isEmpty()) {
            return a;
        }
        String[] first = sections.get(0);
        if (first[0].equals("Mozilla")) {
            a.fields.put("mozilla", first[1]);
        }
        a.platform(first[2]);
        if (sections.size() > 1) {
            a.fields.put("engine", sections.get(1)[0]);
            a.fields.put("engine_version", sections.get(1)[1]);
        }
        a.browser(sections);
        return a;
    }

    /** Splits "Name/Version (comment) ..." into {name, version, comment} triples. */
    private static List<String[]> sections(String ua) {
        List<String[]> out = new ArrayList<>();
        int i = 0;
        int n = ua.length();
        while (i < n) {
            while (i < n && ua.charAt(i) == ' ') {
                i++;
            }
            int start = i;
            while (i < n && ua.charAt(i) != ' ' && ua.charAt(i) != '(') {
                i++;
            }
            String product = ua.substring(start, i);
            while (i < n && ua.charAt(i) == ' ') {
                i++;
            }
            String comment = "";
            if (i < n && ua.charAt(i) == '(') {
                int close = ua.indexOf(')', i);
                close = close < 0 ? n : close;
                comment = ua.substring(i + 1, close);
                i = Math.min(n, close + 1);
            }
            if (!product.isEmpty() || !comment.isEmpty()) {
                int slash = product.indexOf('/');
                out.add(new String[] {slash < 0 ? product : product.substring(0, slash),
                    slash < 0 ? "" : product.substring(slash + 1), comment});
            }
        }
        return out;
    }

    private void platform(String comment) {
        String[] parts = comment.split(";\\s*");
        if (parts.length == 0 || parts[0].isEmpty()) {
            return;
        }
        String p = parts[0];
        if (p.startsWith("Windows")) {
            fields.put("platform", "Windows");
            fields.put("os", WINDOWS.getOrDefault(p, p));
        } else {
            fields.put("platform", p);
            String os = parts.length > 1 ? parts[1] : p;
            fields.put("os", os.startsWith("U") && os.length() == 1 && parts.length > 2 ? parts[2] : os);
        }
        for (String part : parts) {
            if (part.matches("[a-z]{2}([-_][A-Za-z]{2})?") && !part.equals("en") || part.matches("[a-z]{2}-[A-Z]{2}")) {
                fields.put("localization", part);
            }
        }
    }

    private void browser(List<String[]> sections) {
        String[] pick = null;
        String name = null;
        String[][] order = {{"Edg", "Edge"}, {"Edge", "Edge"}, {"OPR", "Opera"}, {"Chrome", "Chrome"},
            {"Firefox", "Firefox"}, {"Safari", "Safari"}};
        for (String[] candidate : order) {
            for (String[] s : sections) {
                if (s[0].equals(candidate[0])) {
                    pick = s;
                    name = candidate[1];
                    break;
                }
            }
            if (pick != null) {
                break;
            }
        }
        if (pick == null) {
            return;
        }
        String version = pick[1];
        if (name.equals("Safari")) {
            for (String[] s : sections) {
                if (s[0].equals("Version")) {
                    version = s[1];
                }
            }
        }
        fields.put("browser", name);
        fields.put("version", version);
    }
}
