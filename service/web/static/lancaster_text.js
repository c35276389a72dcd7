// Lancaster in words, for the text view (reader.js): the round, the phase and the order, your
// screen and knights (your hand), every player's public track (the scores: power), the nine
// counties, the conflicts, parliament (the laws in force, under debate, the vote: your own
// secret vote only, the others' once revealed) and every castle.  Only what the view holds.
import { knightColour, LAWS, SPACES } from "./lancaster.js";
import { html } from "./ui.js";
import { and, dataTable, list, part } from "./text_parts.js";

const LETTER = { red: "R", blue: "B", green: "G", yellow: "Y", purple: "P" };
const SPACE = {
  treasury: "treasury", squire_hall: "squire hall", council: "council", barracks: "barracks",
  training_yard: "training yard", chapel: "chapel",
};
const PHASE = {
  start: "building the first extension", placement: "placing knights", vote: "parliament votes",
  laws: "laws take effect", counties: "county rewards", castle: "castle rewards", conflicts: "conflicts", over: "over",
};
const REWARD = {
  gold: "gold", squires: "squires", vote_markers: "vote markers", markers: "vote markers", power: "power",
  new_knight: "new knight", upgrade: "knight upgrade", extension: "extension", pay_squires: "squires paid",
};
const FAVOUR = { upgrade: "upgrade a knight", goods: "2 gold or squires", noble: "a noble" };
const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const words = (id) => String(id).replaceAll("_", " ");
const strength = (k) => Number(k.split("-")[1][0]);
const NTH = { b: " (second)", c: " (third)" };
/** "red-2b": Red's knight of strength 2 (second): there are two. */
const kName = (k) => `${cap(knightColour(k))}'s knight of strength ${strength(k)}${NTH[k.split("-")[1].slice(1)] || ""}`;
const knights = (ks) => (ks || []).map(kName).join("; ") || "none";
const reward = (r) => and(Object.entries(r || {}).map(([k, v]) => `${v} ${REWARD[k] || words(k)}`)) || "nothing";
const lawName = (id) => `Law ${String(id).replace(/^L/, "")}`;
const law = (id) => `${lawName(id)}: ${LAWS[id] || ""}`;

function sections(s, c) {
  const me = c.you;
  const res = c.view && c.view.result;
  const mine = me != null ? s.players.find((p) => p.seat === me) : null;
  const county = (L) => (s.counties[L] ? `${s.counties[L].name} (${L})` : L);
  const parts = [];
  parts.push(
    part(
      "reader-round",
      "The round",
      list([
        `Round ${s.round} of 5: ${PHASE[s.phase] || words(s.phase)}.`,
        `Start player: ${c.names[s.start]}; order: ${s.order.map((x) => c.names[x]).join(", then ")}.`,
        `The King's favour face up: ${and(s.favour.face_up.map((t) => FAVOUR[String(t).split("-")[0]] || words(t))) || "none"}.`,
        ...(s.pending && s.pending.law ? [`Now: ${words(s.pending.kind || "")} on ${lawName(s.pending.law).toLowerCase()}.`] : []),
        ...(s.prisoners.length ? [`Prisoners: ${knights(s.prisoners)}.`] : []),
      ]),
    ),
  );
  if (mine) {
    const screen = mine.gold != null ? `${mine.gold} gold and ${mine.squires} squires` : "hidden";
    parts.push(
      part(
        "reader-hand",
        "Your screen and knights",
        list([
          `Behind your screen: ${screen}.`,
          `Vote markers: ${mine.markers}.`,
          `Your court (knights ready to send): ${knights(mine.knights.court)}.`,
          `Your reserve: ${knights(mine.knights.reserve)}.`,
          ...(mine.ally_knights
            ? [`Your ally ${mine.ally}'s court: ${knights(mine.ally_knights.court)}.`, `Your ally's reserve: ${knights(mine.ally_knights.reserve)}.`]
            : []),
          `Extensions built: ${and(mine.extensions.map((x) => SPACE[x] || words(x))) || "none"}; ${mine.extension_pile} left to build.`,
          `Nobles at your table: ${and(mine.nobles.map(county)) || "none"}.`,
        ]),
      ),
    );
  }
  parts.push(
    part(
      "reader-scores",
      res ? "Scores: final points" : "Scores: power",
      dataTable(
        "Each player's power, vote markers, screen, nobles and extensions",
        ["Player", "Colour", res ? "Final points" : "Power", "Vote markers", "Gold", "Squires", "Nobles", "Extensions"],
        s.players.map((p) => [
          `${c.names[p.seat]}${p.seat === me ? " (you)" : ""}`,
          `${p.colour} (${LETTER[p.colour] || "?"})${p.ally ? `, ally ${p.ally}` : ""}`,
          res ? `${res.scores[p.seat]} (power ${p.power})` : String(p.power),
          String(p.markers),
          p.gold != null ? String(p.gold) : "hidden",
          p.squires != null ? String(p.squires) : "hidden",
          and(p.nobles.map(county)) || "none",
          p.extensions.length ? `${p.extensions.length} (${and(p.extensions.map((x) => SPACE[x] || words(x)))})` : "none",
        ]),
      ),
    ),
  );
  parts.push(
    part(
      "reader-others",
      "Every player's knights",
      list(
        s.players.map(
          (p) =>
            `${c.names[p.seat]}${p.seat === me ? " (you)" : ""}: court ${knights(p.knights.court)}; reserve ${knights(p.knights.reserve)}${p.ally_knights ? `; ally court ${knights(p.ally_knights.court)}; ally reserve ${knights(p.ally_knights.reserve)}` : ""}.`,
        ),
      ),
    ),
  );
  parts.push(
    part(
      "reader-board",
      "The counties",
      dataTable(
        "The nine counties: the strength a knight needs, the reward, nobles left and who holds it",
        ["County", "Needs strength", "Reward", "Nobles left", "Held by"],
        Object.keys(s.counties).map((L) => {
          const ct = s.counties[L];
          const occ = ct.occupant;
          return [
            county(L),
            String(ct.min),
            reward(ct.reward),
            String(ct.nobles_left),
            occ ? `${kName(occ.knight)}${occ.squires ? ` with ${occ.squires} ${occ.squires === 1 ? "squire" : "squires"}` : ""}` : "nobody",
          ];
        }),
      ),
    ),
  );
  const cfs = [...s.conflicts.upper.map((cf) => [cf, "upper"]), ...s.conflicts.lower.map((cf) => [cf, "lower"])];
  parts.push(
    part(
      "reader-conflicts",
      `The conflicts (${s.conflicts.deck} left in the deck)`,
      cfs.length
        ? dataTable(
            "Each conflict: France's strength, England's, the power of each space and its knights",
            ["Conflict", "France", "England", "Power for spaces 1, 2, 3", "Knights"],
            cfs.map(([cf, row]) => [
              `Conflict ${cf.n} (${row} row)`,
              String(cf.france),
              String(cf.strengths.reduce((a, b) => a + b, 0)),
              cf.power.join(", "),
              cf.spaces.map((stack, i) => `space ${i + 1}: ${knights(stack)}`).join("; ") || "none",
            ]),
          )
        : html`<p>No conflicts on the board.</p>`,
    ),
  );
  const vote = s.vote;
  const voteLines = [];
  if (vote) {
    voteLines.push(`The vote on ${lawName(vote.law).toLowerCase()}: ${vote.committed.length ? `${and(vote.committed.map((x) => c.names[x]))} ${vote.committed.length === 1 ? "has" : "have"} voted` : "nobody has voted yet"}.`);
    if (vote.mine) voteLines.push(`Your secret vote: ${vote.mine.tile} with ${vote.mine.markers} ${vote.mine.markers === 1 ? "marker" : "markers"}.`);
    if (vote.votes) for (const [x, v] of Object.entries(vote.votes)) voteLines.push(`${c.names[x]} voted ${v.tile} with ${v.markers} ${v.markers === 1 ? "marker" : "markers"}.`);
  }
  parts.push(
    part(
      "reader-parliament",
      "Parliament",
      html`${part("reader-laws-now", "Laws in force", list(s.laws.current.map(law)), 4)}
        ${part("reader-laws-debate", "Laws under debate", list(s.laws.debate.map(law)), 4)}
        ${voteLines.length ? list(voteLines) : ""}`,
    ),
  );
  const colours = Object.keys(s.castles);
  parts.push(
    part(
      "reader-castles",
      "The castles",
      dataTable(
        "Each castle's six spaces: the knight there, and the extensions built",
        ["Castle", ...SPACES.map((sp) => SPACE[sp])],
        colours.map((col) => {
          const owner = s.players.find((p) => p.colour === col || p.ally === col);
          const built = owner && owner.colour === col ? owner.extensions : [];
          return [
            `${cap(col)}${owner ? ` (${c.names[owner.seat]}${owner.ally === col ? "'s ally" : ""})` : ""}`,
            ...SPACES.map((sp) => {
              const k = (s.castles[col] || {})[sp];
              const bits = [k ? kName(k) : "", built.includes(sp) ? "extension" : ""].filter(Boolean);
              return bits.join("; ") || "empty";
            }),
          ];
        }),
        { cls: "reader-castles" },
      ),
    ),
  );
  return parts;
}

/** The kinds of move, a group each. */
const KINDS = {
  build_start_extension: "Your first extension",
  place_county: "Send a knight to a county",
  place_castle: "Put a knight in your castle",
  place_conflict: "Send a knight to a conflict",
  take_favour: "The King's favour",
  vote: "Vote, in secret",
  county_reward: "County rewards",
  choose_start_player: "The start player",
  castle_reward: "Castle rewards",
  ransom: "Ransom",
  upgrade: "Upgrade a knight",
  buy: "Buy",
  pass: "Pass",
};
const groupOf = (a) => KINDS[a.type] || cap(words(a.type));

/** @type {import("./common.js").TextView} */
export default { sections, groupOf };
