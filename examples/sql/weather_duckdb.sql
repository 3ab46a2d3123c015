SELECT
  "outlook",
  "temperature",
  "humidity",
  "windy",
  CASE
  WHEN "treegen_p0" >= "treegen_p1" THEN 'yes'
  ELSE 'no'
END AS "prediction",
  "treegen_p0" AS "yes",
  "treegen_p1" AS "no",
  CASE
  WHEN ("outlook" IS NULL OR "outlook" NOT IN ('overcast', 'rainy')) AND ("humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE OR "humidity" <= 75.000001e0) THEN 2
  WHEN ("outlook" IS NULL OR "outlook" NOT IN ('overcast', 'rainy')) AND ("humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE OR "humidity" > 75.000001e0 AND "humidity" <> 'NaN'::DOUBLE) THEN 3
  WHEN ("outlook" IS NULL OR "outlook" NOT IN ('sunny', 'rainy')) THEN 4
  WHEN ("outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast')) AND ("windy" IS NULL OR "windy" <> 'FALSE') THEN 6
  WHEN ("outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast')) AND ("windy" IS NULL OR "windy" <> 'TRUE') THEN 7
END AS "leaf"
FROM (SELECT
  "treegen_t0".*,
  CASE WHEN ("outlook" IS NULL OR "outlook" NOT IN ('overcast', 'rainy')) AND ("humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE OR "humidity" <= 75.000001e0) THEN CASE WHEN "outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast', 'rainy') THEN 0.35714285714285715e0 ELSE 1.0e0 END * CASE WHEN "humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE THEN 0.4e0 ELSE 1.0e0 END ELSE 0.0e0 END + CASE WHEN ("outlook" IS NULL OR "outlook" NOT IN ('sunny', 'rainy')) THEN CASE WHEN "outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast', 'rainy') THEN 0.2857142857142857e0 ELSE 1.0e0 END ELSE 0.0e0 END + CASE WHEN ("outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast')) AND ("windy" IS NULL OR "windy" <> 'TRUE') THEN CASE WHEN "outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast', 'rainy') THEN 0.35714285714285715e0 ELSE 1.0e0 END * CASE WHEN "windy" IS NULL OR "windy" NOT IN ('TRUE', 'FALSE') THEN 0.6e0 ELSE 1.0e0 END ELSE 0.0e0 END AS "treegen_p0",
  CASE WHEN ("outlook" IS NULL OR "outlook" NOT IN ('overcast', 'rainy')) AND ("humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE OR "humidity" > 75.000001e0 AND "humidity" <> 'NaN'::DOUBLE) THEN CASE WHEN "outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast', 'rainy') THEN 0.35714285714285715e0 ELSE 1.0e0 END * CASE WHEN "humidity" IS NULL OR "humidity" = 'NaN'::DOUBLE THEN 0.6e0 ELSE 1.0e0 END ELSE 0.0e0 END + CASE WHEN ("outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast')) AND ("windy" IS NULL OR "windy" <> 'FALSE') THEN CASE WHEN "outlook" IS NULL OR "outlook" NOT IN ('sunny', 'overcast', 'rainy') THEN 0.35714285714285715e0 ELSE 1.0e0 END * CASE WHEN "windy" IS NULL OR "windy" NOT IN ('TRUE', 'FALSE') THEN 0.4e0 ELSE 1.0e0 END ELSE 0.0e0 END AS "treegen_p1"
FROM "weather" AS "treegen_t0") AS "treegen_input"
