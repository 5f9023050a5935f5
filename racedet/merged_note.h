/* merged_note.h: what a text report says under the stack of an access
 * whose shadow cell merged several accesses of one function (racedet/
 * access.c, RD_DELTA_MERGED): the runtime's own text (report.c) and the
 * launcher's (tools/render_text.c) say the same. */
#ifndef DACCE_MERGED_NOTE_H
#define DACCE_MERGED_NOTE_H
#define RD_MERGED_NOTE                                                                      \
  "(merged: the top frame is the first of several accesses by its function, in this "  \
  "context, to these bytes; the racing one may be on another of its lines)"
#endif
