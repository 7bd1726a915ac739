import { daysBetween } from '#src/expiry/calendar.rules.js';
import type { Named, Settings } from '#src/inventory/inventory.schemas.js';
import {
  KG_PER_UNIT,
  LITERS_PER_UNIT,
  positiveSetting,
  round,
  unitKey,
} from '#src/inventory/store/supply.rules.js';
import type { StockGroup, UsedItem } from '#src/inventory/store/readiness.repository.js';
import type { Readiness } from './readiness.schemas.js';

/**
 * The readiness figures (docs/api.md, "Readiness"), computed from the repository's aggregates.
 * Pure: the same aggregates, settings and day give the same answer.
 */

/** Consumption is measured over this many days before now. */
export const CONSUMPTION_DAYS = 90;

const DEFAULTS = { householdSize: 1, dailyKcal: 2200, dailyWaterLiters: 2, goalDays: 10 };
const WATER_NAMES = new Set(['water', 'wasser']);

export interface ReadinessSettings {
  householdSize: number;
  dailyKcal: number;
  dailyWaterLiters: number;
  goalDays: number;
  /** null: the inventory has no water category */
  waterCategoryId: number | null;
}

/**
 * The settings as numbers; a missing or unusable value is its default. `waterCategoryId` must
 * name one of the inventory's categories, else the category named Water or Wasser (any case) is.
 */
export function readinessSettings(settings: Settings, categories: Named[]): ReadinessSettings {
  const chosen = Number(settings.waterCategoryId);
  const byId = categories.find((c) => Number.isInteger(chosen) && c.id === chosen);
  const byName = categories.find((c) => WATER_NAMES.has(c.name.trim().toLowerCase()));
  return {
    householdSize: positiveSetting(settings.householdSize, DEFAULTS.householdSize, true),
    dailyKcal: positiveSetting(settings.dailyKcal, DEFAULTS.dailyKcal, false),
    dailyWaterLiters: positiveSetting(settings.dailyWaterLiters, DEFAULTS.dailyWaterLiters, false),
    goalDays: positiveSetting(settings.goalDays, DEFAULTS.goalDays, true),
    waterCategoryId: (byId ?? byName)?.id ?? null,
  };
}

/** Food kcal (as the summary counts it, the water category left out) and water litres. */
function stockFigures(groups: StockGroup[], waterCategoryId: number | null) {
  let kcal = 0;
  let itemsWithoutKcal = 0;
  let liters = 0;
  for (const group of groups) {
    const unit = unitKey(group.unit);
    if (group.category_id === waterCategoryId) {
      const litersPerUnit = LITERS_PER_UNIT[unit];
      if (litersPerUnit !== undefined) liters += Number(group.quantity) * litersPerUnit;
      continue;
    }
    const kgPerUnit = KG_PER_UNIT[unit];
    if (Number(group.has_kcal) === 1 && kgPerUnit !== undefined) {
      kcal += Number(group.kcal_quantity) * kgPerUnit;
    } else {
      itemsWithoutKcal += Number(group.items);
    }
  }
  return { kcal, itemsWithoutKcal, liters };
}

/** Days that `amount` lasts at `perDay`, one decimal. */
const daysOf = (amount: number, perDay: number) => round(amount / perDay, 1);

/** Sorts by a key, then by name, then by id: a stable order for equal figures. */
function byKeyThenName<T extends { name: string; itemId: string }>(key: (x: T) => number | string) {
  return (a: T, b: T) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    if (a.name !== b.name) return a.name < b.name ? -1 : 1;
    return a.itemId < b.itemId ? -1 : 1;
  };
}

export function computeReadiness(input: {
  settings: ReadinessSettings;
  stock: StockGroup[];
  used: UsedItem[];
  today: string;
}): Readiness {
  const { settings, stock, used, today } = input;
  const { householdSize, goalDays } = settings;
  const kcalPerDay = householdSize * settings.dailyKcal;
  const litersPerDay = householdSize * settings.dailyWaterLiters;
  const figures = stockFigures(stock, settings.waterCategoryId);
  const kcal = round(figures.kcal, 0);
  const liters = round(figures.liters, 2);
  const food = {
    kcal,
    days: daysOf(figures.kcal, kcalPerDay),
    itemsWithoutKcal: figures.itemsWithoutKcal,
  };
  const water = { liters, days: daysOf(figures.liters, litersPerDay) };
  const shortfall = {
    kcal: round(Math.max(0, kcalPerDay * goalDays - kcal), 0),
    liters: round(Math.max(0, litersPerDay * goalDays - liters), 2),
  };

  const runOut: Readiness['runOut'] = [];
  const expiringBeforeUse: Readiness['expiringBeforeUse'] = [];
  for (const row of used) {
    const rate = Number(row.used) / CONSUMPTION_DAYS;
    const quantity = Number(row.quantity);
    const item = { itemId: row.item_id, name: row.name };
    const lasts = Math.max(0, quantity) / rate;
    if (lasts < goalDays) runOut.push({ ...item, daysLeft: round(lasts, 1) });
    if (row.expiry_date !== null) {
      const untilExpiry = Math.max(0, daysBetween(today, row.expiry_date));
      const projectedLeft = quantity - rate * untilExpiry;
      if (projectedLeft > 0) {
        expiringBeforeUse.push({
          ...item,
          expiryDate: row.expiry_date,
          quantity,
          projectedLeft: round(projectedLeft, 2),
        });
      }
    }
  }
  runOut.sort(byKeyThenName((x) => x.daysLeft));
  expiringBeforeUse.sort(byKeyThenName((x) => x.expiryDate));

  return {
    householdSize,
    goalDays,
    food,
    water,
    days: Math.min(food.days, water.days),
    goalMet: shortfall.kcal === 0 && shortfall.liters === 0,
    shortfall,
    runOut,
    expiringBeforeUse,
  };
}
