SELECT
  "outlook",
  "temperature",
  "humidity",
  "windy",
  "treegen_wl1" AS "prediction",
  "treegen_p0" AS "yes",
  "treegen_p1" AS "no",
  SUBSTRING((((CASE WHEN "treegen_x0_2" > 0.0e0 THEN '|2' ELSE '' END || CASE WHEN "treegen_x0_3" > 0.0e0 THEN '|3' ELSE '' END) || (CASE WHEN "treegen_x0_4" > 0.0e0 THEN '|4' ELSE '' END || CASE WHEN "treegen_x0_6" > 0.0e0 THEN '|6' ELSE '' END)) || CASE WHEN "treegen_x0_7" > 0.0e0 THEN '|7' ELSE '' END) FROM 2) AS "leaf"
FROM (SELECT
  "treegen_t2".*,
  CASE WHEN "treegen_p1" - "treegen_p0" > 1e-06 AND "treegen_p1" - "treegen_p0" <> 'NaN'::DOUBLE THEN 'no' ELSE 'yes' END AS "treegen_wl1",
  CASE WHEN "treegen_p1" - "treegen_p0" > 1e-06 AND "treegen_p1" - "treegen_p0" <> 'NaN'::DOUBLE THEN "treegen_p1" ELSE "treegen_p0" END AS "treegen_wv1"
FROM (SELECT
  "treegen_t1".*,
  "treegen_x0_2" + "treegen_x0_4" + "treegen_x0_7" AS "treegen_p0",
  "treegen_x0_3" + "treegen_x0_6" AS "treegen_p1"
FROM (SELECT
  "treegen_t0".*,
  CASE WHEN ("outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('overcast', 'rainy')) AND ("humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE OR "humidity" <= 75.000001e0) THEN CASE WHEN "outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast', 'rainy') THEN CASE WHEN "humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE THEN 0.14285714285714288e0 ELSE 0.35714285714285715e0 END ELSE CASE WHEN "humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE THEN 0.4e0 ELSE 1.0e0 END END ELSE 0.0e0 END AS "treegen_x0_2",
  CASE WHEN ("outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('overcast', 'rainy')) AND ("humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE OR "humidity" > 75.000001e0 AND "humidity" <> 'NaN'::DOUBLE) THEN CASE WHEN "outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast', 'rainy') THEN CASE WHEN "humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE THEN 0.21428571428571427e0 ELSE 0.35714285714285715e0 END ELSE CASE WHEN "humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE THEN 0.6e0 ELSE 1.0e0 END END ELSE 0.0e0 END AS "treegen_x0_3",
  CASE WHEN ("outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'rainy')) THEN CASE WHEN "outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast', 'rainy') THEN 0.2857142857142857e0 ELSE 1.0e0 END ELSE 0.0e0 END AS "treegen_x0_4",
  CASE WHEN ("outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast')) AND ("windy" IS NULL OR CAST("windy" AS VARCHAR) COLLATE "C" <> 'FALSE') THEN CASE WHEN "outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast', 'rainy') THEN CASE WHEN "windy" IS NULL OR CAST("windy" AS VARCHAR) COLLATE "C" NOT IN ('TRUE', 'FALSE') THEN 0.14285714285714288e0 ELSE 0.35714285714285715e0 END ELSE CASE WHEN "windy" IS NULL OR CAST("windy" AS VARCHAR) COLLATE "C" NOT IN ('TRUE', 'FALSE') THEN 0.4e0 ELSE 1.0e0 END END ELSE 0.0e0 END AS "treegen_x0_6",
  CASE WHEN ("outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast')) AND ("windy" IS NULL OR CAST("windy" AS VARCHAR) COLLATE "C" <> 'TRUE') THEN CASE WHEN "outlook" IS NULL OR CAST("outlook" AS VARCHAR) COLLATE "C" NOT IN ('sunny', 'overcast', 'rainy') THEN CASE WHEN "windy" IS NULL OR CAST("windy" AS VARCHAR) COLLATE "C" NOT IN ('TRUE', 'FALSE') THEN 0.21428571428571427e0 ELSE 0.35714285714285715e0 END ELSE CASE WHEN "windy" IS NULL OR CAST("windy" AS VARCHAR) COLLATE "C" NOT IN ('TRUE', 'FALSE') THEN 0.6e0 ELSE 1.0e0 END END ELSE 0.0e0 END AS "treegen_x0_7"
FROM (SELECT
  CASE WHEN (CAST(CAST("outlook" AS VARCHAR) AS VARCHAR) COLLATE "C" IN ('', '?', 'NA') OR (CAST("outlook" AS VARCHAR) COLLATE "C" LIKE ' %' OR CAST("outlook" AS VARCHAR) COLLATE "C" LIKE '% ') AND trim(CAST("outlook" AS VARCHAR), ' ') COLLATE "C" IN ('', '?', 'NA')) THEN NULL ELSE "outlook" END AS "outlook",
  "temperature",
  CASE WHEN typeof("humidity") <> 'VARCHAR' THEN CAST("humidity" AS DOUBLE) WHEN "humidity" IS NULL THEN NULL WHEN regexp_full_match(CAST("humidity" AS VARCHAR), '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?') THEN CAST(CAST("humidity" AS VARCHAR) AS DOUBLE) WHEN trim(CAST("humidity" AS VARCHAR), ' ') IN ('', '?', 'NA') OR lower(CAST("humidity" AS VARCHAR)) IN ('nan', '+nan', '-nan') THEN NULL WHEN lower(CAST("humidity" AS VARCHAR)) IN ('inf', '+inf', 'infinity', '+infinity') THEN 'Infinity'::DOUBLE WHEN lower(CAST("humidity" AS VARCHAR)) IN ('-inf', '-infinity') THEN '-Infinity'::DOUBLE ELSE error('treegen: the column ' || 'humidity' || ' holds "' || CAST("humidity" AS VARCHAR) || '", not a number (nor missing: empty, ? or NA)') END AS "humidity",
  CASE WHEN (CAST(CAST("windy" AS VARCHAR) AS VARCHAR) COLLATE "C" IN ('', '?', 'NA') OR (CAST("windy" AS VARCHAR) COLLATE "C" LIKE ' %' OR CAST("windy" AS VARCHAR) COLLATE "C" LIKE '% ') AND trim(CAST("windy" AS VARCHAR), ' ') COLLATE "C" IN ('', '?', 'NA')) THEN NULL ELSE CASE WHEN typeof("windy") = 'BOOLEAN' THEN CASE CAST("windy" AS VARCHAR) WHEN 'false' THEN 'FALSE' WHEN 'true' THEN 'TRUE' ELSE CAST("windy" AS VARCHAR) END ELSE CAST("windy" AS VARCHAR) END END AS "windy"
FROM "weather" AS "treegen_table") AS "treegen_t0") AS "treegen_t1") AS "treegen_t2") AS "treegen_input"
