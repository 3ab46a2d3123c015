import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A program that embeds a generated class. Generate it, compile both, run:
 *
 * <pre>
 * treegen train examples/play_tennis.csv --target play --algorithm id3 -o tennis.json
 * treegen export tennis.json --to java --class-name Tennis -o examples/java/Tennis.java
 * javac -d build examples/java/*.java
 * java -cp build Main
 * </pre>
 */
public final class Main {
    public static void main(String[] args) {
        // A row as a map from feature name to value: a missing key or null is a missing value.
        Map<String, Object> day = new HashMap<>();
        day.put("outlook", "sunny");
        day.put("temperature", "cool");
        day.put("humidity", "high");
        day.put("wind", "strong");
        System.out.println("features " + Tennis.FEATURES + ", classes " + Tennis.CLASSES);
        System.out.println(day + " -> " + Tennis.predict(day) + " " + Arrays.toString(Tennis.predictProba(day)));

        // The same call with one value per feature, in Tennis.FEATURES order; an unseen category
        // ("foggy") is treated as missing.
        Object[][] rows = {
            {"overcast", null, "normal", null},
            {"rain", "mild", "normal", "weak"},
            {"foggy", null, null, "weak"},
        };
        for (Object[] row : rows) {
            System.out.println(Arrays.toString(row) + " -> " + Tennis.predict(row) + " "
                + Arrays.toString(Tennis.predictProba(row)));
        }
    }
}
