import assert from "node:assert/strict";
import { matchDenyPattern } from "../../../core/tools/deny.ts";

Deno.test("deny patterns match the command line or any command in it, without case", () => {
  const patterns = ["git push *", "npm publish*", "*DROP TABLE *"];
  const blocked: [string, string][] = [
    ["git push origin main", "git push *"],
    ["cd app && git  push --force", "git push *"],
    ["sudo git push -f", "git push *"],
    ['bash -c "git push origin"', "git push *"],
    ["echo $(git push x)", "git push *"],
    ["npm publish --access public", "npm publish*"],
    ['psql -c "drop table users"', "*DROP TABLE *"],
  ];
  for (const [command, pattern] of blocked) {
    assert.equal(matchDenyPattern(command, patterns), pattern, command);
  }
  for (const command of ["git pushd", "git status", "echo git", "npm test"]) {
    assert.equal(matchDenyPattern(command, patterns), undefined, command);
  }
});

Deno.test("? matches one character and other characters are literal", () => {
  assert.equal(matchDenyPattern("rm a.txt", ["rm ?.txt"]), "rm ?.txt");
  assert.equal(matchDenyPattern("rm ab.txt", ["rm ?.txt"]), undefined);
  assert.equal(matchDenyPattern("rm aXtxt", ["rm a.txt"]), undefined);
  assert.equal(matchDenyPattern("anything", []), undefined);
});
