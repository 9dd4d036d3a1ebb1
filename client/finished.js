// The boxes under a finished game: its replay and the computer's analysis of it (replay.js,
// analysis.js), opened from the room's buttons and put away when the next game starts.

import { getRecord, replay as replayRecord } from "./api.js";
import { openAnalysis } from "./analysis.js";
import { $, show } from "./dom.js";
import { openReplay } from "./replay.js";

export class FinishedGame {
  // flipped(): whether the room's board is turned; onFail(kind, error): the record or its
  // replay could not be had.
  constructor(room, { flipped, onFail }) {
    Object.assign(this, { room, flipped, onFail });
    this.analysis = null; // the running analysis view, stopped when it is put away
  }

  // kind: "replay" or "analysis"
  async open(kind) {
    const box = $(`#${kind}`);
    try {
      const record = await getRecord(this.room);
      const data = await replayRecord(record);
      const onClose = () => show(box, false);
      if (kind === "replay") openReplay(box, data, { onClose, record });
      else {
        this.analysis?.stop();
        this.analysis = openAnalysis(box, record, data, { onClose, flipped: this.flipped() });
      }
      show(box, true);
      box.scrollIntoView({ block: "start" });
    } catch (err) {
      this.onFail(kind, err);
    }
  }

  close() {
    this.analysis?.stop();
    this.analysis = null;
    show($("#analysis"), false);
    show($("#replay"), false);
  }
}
