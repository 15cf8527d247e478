#ifndef CLASSIC_PHOTOS_COLOUR_ROWS_H
#define CLASSIC_PHOTOS_COLOUR_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* How many steps of linear light the encoding table of cp_matrix_shaper has. */
#define CP_MATRIX_SHAPER_STEPS 16384

/* A turning of 8-bit RGB from one colour space described by tone curves and primaries (a
 * "matrix-shaper" profile) into another: each value made linear through its channel's table,
 * the three mixed by one 3 × 3 matrix, and each result encoded again through one table.
 * The tables are filled from Little CMS's reading of the two profiles (ColorProfile+MatrixShaper.swift),
 * and the result is checked against Little CMS's own transform before it is used. */
typedef struct {
    /* Each channel's 256 values as linear light, 0 … 1. */
    float linear[3][256];
    /* Row-major: output channel i = Σ matrix[i][j] × input j, scaled so that 1.0 of linear
     * light lands on the last step of `encode`. */
    float matrix[3][3];
    /* The output's 8-bit value for each step of linear light (CP_MATRIX_SHAPER_STEPS of them). */
    const uint8_t *encode;
} cp_matrix_shaper;

/* Turns `rows` rows of `width` pixels in place: `channels` bytes a pixel (3, or 4 with alpha
 * last, which is left as it is), `stride` bytes a row. */
void cp_matrix_shaper_rows(const cp_matrix_shaper *shaper, uint8_t *pixels, int width, int rows, size_t stride,
                           int channels);

#endif
