import { benchRoundTrips } from "./agent_roundtrip.ts";
const out: number[] = [];
for (let i = 0; i < 3; i++) out.push((await benchRoundTrips(200)).overheadPerRoundTripMs);
console.log(out.map((x) => x.toFixed(2)).join(" "));
