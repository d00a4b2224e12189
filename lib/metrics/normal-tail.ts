/** The standard normal distribution's tail, for the tests that approximate a statistic by it (Mann-Kendall, Mann-Whitney, Wilcoxon, the binomial mix check). */

/** Standard normal upper tail, via erfc (Numerical Recipes' erfcc Chebyshev fit, fractional error < 1.2e-7). */
export function normalUpperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t *
                              (-1.13520398 +
                                t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  const upper = erfc / 2;
  return z >= 0 ? upper : 1 - upper;
}
