/* A program that links a generated model. Generate it, compile both, run:
 *
 *   treegen train examples/play_tennis.csv --target play --algorithm id3 -o tennis.json
 *   treegen export tennis.json --to c -o examples/c/tennis.c   (writes tennis.h too; names start tennis_)
 *   cc -std=c99 -O2 examples/c/main.c examples/c/tennis.c -lm -o tennis
 *   ./tennis
 */
#include <math.h>
#include <stdio.h>

#include "tennis.h"

/* A row of one double per feature, in tennis_features order: a category as its index, which
 * tennis_category gives from its text (-1 for a category the tree never saw), NAN when missing. */
static void fill(double *row, const char *const *texts)
{
    int i;
    for (i = 0; i < TENNIS_N_FEATURES; i++) {
        row[i] = texts[i] == NULL ? NAN : (double) tennis_category(i, texts[i]);
    }
}

int main(void)
{
    /* Each day's texts at their features' indices, which tennis.h names; NULL where missing. */
    static const char *const days[][TENNIS_N_FEATURES] = {
        {[TENNIS_OUTLOOK] = "sunny", [TENNIS_TEMPERATURE] = "cool", [TENNIS_HUMIDITY] = "high",
         [TENNIS_WIND] = "strong"},
        {[TENNIS_OUTLOOK] = "overcast", [TENNIS_HUMIDITY] = "normal"},
        {[TENNIS_OUTLOOK] = "rain", [TENNIS_TEMPERATURE] = "mild", [TENNIS_HUMIDITY] = "normal",
         [TENNIS_WIND] = "weak"},
        {[TENNIS_OUTLOOK] = "foggy", [TENNIS_WIND] = "weak"},
    };
    enum { DAYS = sizeof days / sizeof days[0] };
    double row[TENNIS_N_FEATURES], probabilities[TENNIS_N_CLASSES], rows[DAYS * TENNIS_N_FEATURES];
    size_t d;
    int i, k, labels[DAYS];
    for (d = 0; d < DAYS; d++) {
        fill(row, days[d]);
        tennis_predict_proba(row, probabilities);
        for (i = 0; i < TENNIS_N_FEATURES; i++) {
            printf("%s=%s ", tennis_features[i], days[d][i] == NULL ? "?" : days[d][i]);
        }
        printf("-> %s (", tennis_classes[tennis_predict(row)]);
        for (k = 0; k < TENNIS_N_CLASSES; k++) {
            printf("%s%s %.17g", k > 0 ? ", " : "", tennis_classes[k], probabilities[k]);
        }
        printf(")\n");
    }
    /* Many rows at once, one after another: the same answers, and faster for a big ensemble. */
    for (d = 0; d < DAYS; d++) {
        fill(rows + d * TENNIS_N_FEATURES, days[d]);
    }
    tennis_predict_rows(rows, DAYS, labels);
    printf("all at once:");
    for (d = 0; d < DAYS; d++) {
        printf(" %s", tennis_classes[labels[d]]);
    }
    printf("\n");
    return 0;
}
