/* my_model.c -- "what speed-up will my model get on my GPU", as a library call.
 *
 *   cc my_model.c $(pkg-config --cflags --libs specdec) -o my_model
 *   ./my_model                 # Llama-3.1-8B drafted by Llama-3.2-1B on one H100, alpha 0.8
 *
 * Fills the roofline command's request (cmd_roofline.h) -- the pair, the
 * accelerator, the acceptance and the batches -- and prints the table
 * `specdec roofline` prints for the same options: the best draft length
 * at each batch, its speed-up and the band of the calibration.  Fields left
 * out take the program's defaults (context 4096, gamma 1..16, the shipped
 * calibration).
 */
#include <stdio.h>

#include <specdec.h>

int main(void)
{
    static const double batch[] = { 1, 8, 32, 128 };
    sd_cmd_roofline_request rq = sd_cmd_roofline_defaults();
    rq.target = "llama-3.1-8b";
    rq.draft = "llama-3.2-1b";
    rq.hardware = "h100-sxm";
    rq.alpha = 0.8;
    rq.batch = (sd_command_list){ batch, sizeof batch / sizeof batch[0] };
    sd_table *t;
    sd_error err;
    if (sd_cmd_roofline_table(&rq, &t, &err) != SD_OK) {
        fprintf(stderr, "my_model: %s\n", err.msg);
        return 1;
    }
    sd_status st = sd_format_write(t, SD_FORMAT_TSV, stdout, &err);
    sd_table_free(t);
    if (st != SD_OK) {
        fprintf(stderr, "my_model: %s\n", err.msg);
        return 1;
    }
    return 0;
}
