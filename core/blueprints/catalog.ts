/**
 * The catalog: the blueprints Herald ships, each checked by
 * {@link defineBlueprint} when this module loads. Watchers tell the model
 * to answer exactly `[SILENT]` when nothing is worth reporting (the run is
 * saved, not delivered). The skills they name may not be installed; the
 * runner tells the model when one is missing.
 *
 * @module
 */

import { defineBlueprint } from "./define.ts";
import {
  type Blueprint,
  type BlueprintSlot,
  daySlot,
  daysSlot,
  DELIVER_SLOT,
  timeSlot,
} from "./slots.ts";

/** What watchers answer when nothing is worth reporting. */
const SILENT = "If nothing qualifies, answer exactly [SILENT] and nothing else.";

/** A daily-shape schedule: the time on the chosen days. */
const AT_TIME = "{minute} {hour} * * {dow}";

function text(name: string, label: string, value: string, help?: string): BlueprintSlot {
  return { name, type: "text", label, default: value, ...(help ? { help } : {}) };
}

function choice(name: string, label: string, options: string[], value: string): BlueprintSlot {
  return { name, type: "enum", label, options, default: value };
}

const DEFINITIONS: Blueprint[] = [
  {
    key: "morning-brief",
    title: "Morning briefing",
    description: "A short start to the day: weather, calendar, deadlines and what needs you first.",
    category: "Briefings",
    schedule_template: AT_TIME,
    prompt_template: "Prepare my morning briefing. Cover the weather where I am, today's " +
      "calendar and deadlines, and the few messages or tasks that need me first. Headlines " +
      "first, one line each; then anything I should prepare for today.",
    slots: [timeSlot("08:00"), daysSlot("everyday"), DELIVER_SLOT],
    deliver_default: "origin",
    skills: ["calendar"],
    tags: ["daily", "briefing", "calendar"],
  },
  {
    key: "workday-start",
    title: "Workday kickoff",
    description: "At the start of each workday: today's meetings, the one task that matters most.",
    category: "Briefings",
    schedule_template: AT_TIME,
    prompt_template: "My workday starts now. Give me a focused kickoff: the meetings and " +
      "deadlines of today, the single task that matters most and why, and a suggestion for " +
      "when to block time for it.",
    slots: [timeSlot("09:00"), daysSlot("weekdays"), DELIVER_SLOT],
    deliver_default: "origin",
    skills: [],
    tags: ["work", "daily", "focus"],
  },
  {
    key: "news-digest",
    title: "Topic news digest",
    description: "The few stories that mattered on a topic you follow, with sources.",
    category: "Briefings",
    schedule_template: AT_TIME,
    prompt_template: "Find the {count} most significant news stories of the past day about " +
      "{topic}. For each give a headline, two sentences on why it matters and the source. " +
      "Leave out rumours and stories you reported on earlier days.",
    slots: [
      text("topic", "Which topic?", "AI and technology"),
      choice("count", "How many stories?", ["3", "5", "8"], "5"),
      timeSlot("18:00"),
      daysSlot("weekdays"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: ["web-research"],
    tags: ["news", "research", "digest"],
  },
  {
    key: "important-mail",
    title: "Important mail watch",
    description: "Checks your inbox every so often and speaks up only for mail that matters.",
    category: "Watchers",
    schedule_template: "*/{interval_min} * * * *",
    prompt_template: "Look through the email that arrived since your last check. Report only " +
      "the messages that match: {criteria}. For each give the sender, the subject and one line " +
      `on what is asked of me. ${SILENT}`,
    slots: [
      choice("interval_min", "Check every how many minutes?", ["15", "30", "60"], "30"),
      text(
        "criteria",
        "What counts as important?",
        "from my manager or a client, or with a deadline this week",
      ),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: ["inbox-triage"],
    tags: ["email", "inbox", "watch"],
  },
  {
    key: "price-watch",
    title: "Price and stock watch",
    description: "Keeps an eye on a product and tells you when the price or stock changes.",
    category: "Watchers",
    schedule_template: "0 */{interval_h} * * *",
    prompt_template: "Check the current price and availability of {item}. Tell me only if " +
      `{condition}, with the price, the shop and a link. ${SILENT}`,
    slots: [
      text("item", "Which product?", "the noise-cancelling headphones on my wishlist"),
      text("condition", "When should I tell you?", "the price drops or it is back in stock"),
      choice("interval_h", "Check every how many hours?", ["1", "3", "6", "12", "24"], "6"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: ["price-monitor"],
    tags: ["shopping", "price", "watch"],
  },
  {
    key: "competitor-watch",
    title: "Competitor watch",
    description: "A weekly look at what the companies you compete with announced.",
    category: "Watchers",
    schedule_template: AT_TIME,
    prompt_template: "Search for news from the past week about {companies}: {topics}. Report " +
      "each finding in two lines with its source and what it could mean for us. " + SILENT,
    slots: [
      text("companies", "Which companies?", "our three closest competitors"),
      text("topics", "What kind of news?", "launches, pricing changes, funding and hiring"),
      timeSlot("09:00"),
      daysSlot("monday"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: ["web-research"],
    tags: ["business", "news", "watch"],
  },
  {
    key: "page-watch",
    title: "Page and feed watch",
    description: "Reads a page or feed now and then and reports new items you care about.",
    category: "Watchers",
    schedule_template: "0 */{interval_h} * * *",
    prompt_template: "Open {source} and look for new items since your last check about " +
      `{interest}. List each new one with its title, a one-line summary and its link. ${SILENT}`,
    slots: [
      text("source", "Which page or feed?", "https://news.ycombinator.com"),
      text("interest", "What are you looking for?", "Deno, TypeScript or local-first software"),
      choice("interval_h", "Check every how many hours?", ["1", "3", "6", "12", "24"], "3"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: ["web-research"],
    tags: ["feed", "web", "watch"],
  },
  {
    key: "custom-reminder",
    title: "Custom reminder",
    description: "A reminder of your own, at a time and on the days you choose.",
    category: "Reminders",
    schedule_template: AT_TIME,
    prompt_template: "Remind me of this, in one short and friendly line: {what}",
    slots: [
      text("what", "What should I remind you of?", "take a break and stretch"),
      timeSlot("14:00"),
      daysSlot("everyday"),
      {
        name: "schedule",
        type: "text",
        label: "Or a schedule in words?",
        optional: true,
        help: "replaces the time and days: in 45m, every 2h, every friday 5pm",
      },
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["reminder"],
  },
  {
    key: "bill-renewal-watch",
    title: "Bills and renewals",
    description: "Warns you about payments and renewals falling due in the coming week.",
    category: "Reminders",
    schedule_template: AT_TIME,
    prompt_template: "Check what I have told you about my bills and renewals ({what}) and any " +
      "mail about payments due. List what falls due in the next seven days with the amount " +
      `and the date. ${SILENT}`,
    slots: [
      text("what", "Which bills and renewals?", "rent, phone, subscriptions and insurance"),
      timeSlot("10:00"),
      daysSlot("everyday"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["money", "reminder", "watch"],
  },
  {
    key: "weekly-review",
    title: "Weekly review",
    description: "Closes the week: what got done, what slipped, and three priorities for the next.",
    category: "Planning",
    schedule_template: AT_TIME,
    prompt_template: "Help me close the week. Summarise what I got done and what slipped, " +
      "from what you know of my week; then propose three priorities for next week and ask me " +
      "one question that helps me plan it.",
    slots: [timeSlot("18:00"), daySlot("sunday"), DELIVER_SLOT],
    deliver_default: "origin",
    skills: ["weekly-planning"],
    tags: ["weekly", "planning", "review"],
  },
  {
    key: "meal-plan",
    title: "Weekly meal plan",
    description: "A week of meals to your diet and effort, with one shopping list.",
    category: "Planning",
    schedule_template: AT_TIME,
    prompt_template: "Plan my meals for the coming week: {meals}; diet: {diet}; cooking " +
      "effort: {effort}. Give the plan day by day, then one shopping list grouped by aisle.",
    slots: [
      choice(
        "diet",
        "Any diet?",
        ["no restrictions", "vegetarian", "vegan", "high-protein", "low-carb"],
        "no restrictions",
      ),
      choice(
        "meals",
        "Which meals?",
        ["dinners only", "lunches and dinners", "all meals"],
        "dinners only",
      ),
      choice("effort", "How much cooking effort?", ["quick", "medium", "ambitious"], "quick"),
      timeSlot("17:00"),
      daySlot("sunday"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["food", "weekly", "planning"],
  },
  {
    key: "habit-checkin",
    title: "Habit check-in",
    description: "One friendly question a day about a habit you are building.",
    category: "Wellbeing",
    schedule_template: AT_TIME,
    prompt_template: "Ask me, in one warm question, whether I kept my habit today: {habit}. " +
      "If I told you I missed days, encourage me without guilt.",
    slots: [
      text("habit", "Which habit?", "20 minutes of reading"),
      timeSlot("20:00"),
      daysSlot("everyday"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["habit", "daily", "wellbeing"],
  },
  {
    key: "hydration-move",
    title: "Water and movement nudge",
    description: "A nudge every hour or so during the day to drink water and move a little.",
    category: "Wellbeing",
    schedule_template: "0 {start_hour}-{end_hour}/{interval_hours} * * {dow}",
    prompt_template: "Send me a one-line nudge to drink some water and stand up or stretch " +
      "for a minute. Word it differently each time.",
    slots: [
      choice("interval_hours", "Every how many hours?", ["1", "2", "3"], "1"),
      choice("start_hour", "From which hour?", ["7", "8", "9", "10"], "9"),
      choice("end_hour", "Until which hour?", ["16", "17", "18", "19"], "17"),
      daysSlot("weekdays"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["health", "wellbeing", "nudge"],
  },
  {
    key: "evening-winddown",
    title: "Evening wind-down",
    description: "A calm close to the day and one thing to set up for tomorrow.",
    category: "Wellbeing",
    schedule_template: AT_TIME,
    prompt_template: "Help me wind down for the evening: recap my day in two lines if you " +
      "know it, name one thing to set up for tomorrow, and nudge me gently to put screens away.",
    slots: [timeSlot("21:00"), daysSlot("everyday"), DELIVER_SLOT],
    deliver_default: "origin",
    skills: [],
    tags: ["evening", "daily", "wellbeing"],
  },
  {
    key: "gratitude-journal",
    title: "Gratitude and reflection",
    description: "One reflective question at the end of the day.",
    category: "Wellbeing",
    schedule_template: AT_TIME,
    prompt_template: "Ask me one reflective question for the end of the day: what went well, " +
      "what I am grateful for, or what I learned. Vary it from day to day; one question only.",
    slots: [timeSlot("21:30"), daysSlot("everyday"), DELIVER_SLOT],
    deliver_default: "origin",
    skills: [],
    tags: ["journal", "daily", "wellbeing"],
  },
  {
    key: "learn-daily",
    title: "Daily learning",
    description: "A small lesson a day on a subject of your choice, with a quick quiz.",
    category: "Learning",
    schedule_template: AT_TIME,
    prompt_template: "Teach me one small thing about {topic} today: a short explanation, an " +
      "example, and a one-question quiz with its answer at the end. Build on earlier lessons " +
      "instead of repeating them.",
    slots: [
      text("topic", "What do you want to learn?", "Spanish vocabulary"),
      timeSlot("08:30"),
      daysSlot("weekdays"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["learning", "daily"],
  },
  {
    key: "on-this-day",
    title: "On this day",
    description: "Something to discover each morning: history, a word, a fact or a quote.",
    category: "Learning",
    schedule_template: AT_TIME,
    prompt_template: 'Give me today\'s pick for "{flavor}": one item in a few sentences, with ' +
      "a source or origin I can look up.",
    slots: [
      choice(
        "flavor",
        "What kind?",
        ["on this day in history", "word of the day", "science fact", "quote of the day"],
        "on this day in history",
      ),
      timeSlot("07:30"),
      daysSlot("everyday"),
      DELIVER_SLOT,
    ],
    deliver_default: "origin",
    skills: [],
    tags: ["learning", "daily", "fun"],
  },
];

/** The catalog, each definition checked when this module loads. */
export const BLUEPRINTS: readonly Blueprint[] = Object.freeze(DEFINITIONS.map(defineBlueprint));
