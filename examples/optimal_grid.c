/* optimal_grid.c -- the optimal draft length over a grid of acceptance
 * rates and cost ratios, with libspecdec.
 *
 *   cc optimal_grid.c $(pkg-config --cflags --libs specdec) -o optimal_grid
 *   ./optimal_grid            # a Markdown table on stdout
 *
 * For each (alpha, c) it asks sd_theory_optimal for the whole gamma that
 * maximises eq. (10), E(N) / (1 + gamma c), and prints it with the
 * improvement it buys.  The table is built with the library's own result
 * type and rendered by its Markdown formatter.
 */
#include <stdio.h>

#include <specdec.h>

int main(void)
{
    static const double alphas[] = { 0.6, 0.7, 0.8, 0.9 };
    static const double costs[] = { 0.02, 0.05, 0.2 }; /* c = 0.02: the seed's example */
    static const char *const cols[] = { "alpha", "cost", "gamma_opt", "improvement_opt" };
    sd_error err;
    sd_table *t = sd_table_alloc(4, cols);
    if (t == NULL) {
        fprintf(stderr, "optimal_grid: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++)
        for (size_t j = 0; j < sizeof costs / sizeof costs[0]; j++) {
            sd_optimum o;
            if (sd_theory_optimal(alphas[i], costs[j], &o, &err) != SD_OK) {
                fprintf(stderr, "optimal_grid: %s\n", err.msg);
                sd_table_free(t);
                return 1;
            }
            const sd_cell row[] = { sd_real(alphas[i]), sd_real(costs[j]), sd_int((long long)o.gamma_opt),
                                    sd_real(o.improvement_opt) };
            if (sd_table_add(t, row, &err) != SD_OK) {
                fprintf(stderr, "optimal_grid: %s\n", err.msg);
                sd_table_free(t);
                return 1;
            }
        }
    int rc = sd_format_write(t, SD_FORMAT_MARKDOWN, stdout, &err) == SD_OK ? 0 : 1;
    sd_table_free(t);
    printf("\nlibspecdec %s, GSL %s\n", sd_version(), sd_version_gsl());
    return rc;
}
