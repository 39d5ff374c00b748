/*
 * The scalar ends of the scale-bias backward pass, the same at every instruction-set level: the float sums of a
 * block of rows go into double totals, and the totals become the float gradients. Included by elementwise_*.c.
 */
#ifndef WORKBENCH_SCALE_BIAS_SUMS_H
#define WORKBENCH_SCALE_BIAS_SUMS_H

/* Adds one block's float partial sums to the double totals. */
static inline void wbt_add_partial_sums(long channels, const float *scalePartial, const float *biasPartial,
                                        double *scaleTotal, double *biasTotal) {
    for (long c = 0; c < channels; c++) {
        scaleTotal[c] += scalePartial[c];
        biasTotal[c] += biasPartial[c];
    }
}

/* Writes the totals out as the gradients; the scale's only when it was summed. */
static inline void wbt_store_totals(long channels, int sumsScale, const double *scaleTotal, const double *biasTotal,
                                    float *scaleGradient, float *biasGradient) {
    for (long c = 0; c < channels; c++) {
        if (sumsScale) scaleGradient[c] = (float)scaleTotal[c];
        biasGradient[c] = (float)biasTotal[c];
    }
}

#endif
