import { locale, t } from '#web/app/i18n.ts';
import { OptionalScreen } from '#web/app/stock/OptionalScreen.tsx';
import { Facts } from '#web/shared/Facts.tsx';

/** GET /api/inventory/readiness (docs/api.md, "The household's stock over time"). */
interface Readiness {
  householdSize: number;
  goalDays: number;
  food: { kcal: number; days: number; itemsWithoutKcal: number };
  water: { liters: number; days: number };
  days: number;
  goalMet: boolean;
  shortfall: { kcal: number; liters: number };
  runOut: { itemId: string; name: string; daysLeft: number }[];
  expiringBeforeUse: {
    itemId: string;
    name: string;
    expiryDate: string;
    quantity: number;
    projectedLeft: number;
  }[];
}

const number = (n: number, digits = 1) =>
  new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(n);

function ReadinessView({ r }: { r: Readiness }) {
  return (
    <>
      <p class={r.goalMet ? 'notice' : 'warning'}>
        {t(r.goalMet ? 'household.readyMet' : 'household.readyNotMet', {
          days: number(r.days),
          goal: r.goalDays,
          people: r.householdSize,
        })}
      </p>
      <Facts
        facts={[
          [
            t('household.readyFood'),
            t('household.readyFoodFacts', {
              kcal: number(r.food.kcal, 0),
              days: number(r.food.days),
            }),
          ],
          [t('household.readyWithoutKcal'), r.food.itemsWithoutKcal],
          [
            t('household.readyWater'),
            t('household.readyWaterFacts', {
              liters: number(r.water.liters, 2),
              days: number(r.water.days),
            }),
          ],
        ]}
      />
      {!r.goalMet && (
        <p>
          {t('household.readyShortfall', {
            kcal: number(r.shortfall.kcal, 0),
            liters: number(r.shortfall.liters),
          })}
        </p>
      )}
      {r.runOut.length > 0 && (
        <>
          <h2>{t('household.readyRunOut')}</h2>
          <ul>
            {r.runOut.map((i) => (
              <li key={i.itemId}>
                {i.name}: {t('household.readyDays', { days: number(i.daysLeft) })}
              </li>
            ))}
          </ul>
        </>
      )}
      {r.expiringBeforeUse.length > 0 && (
        <>
          <h2>{t('household.readyExpiring')}</h2>
          <ul>
            {r.expiringBeforeUse.map((i) => (
              <li key={i.itemId}>
                {t('household.readyLeftAt', {
                  name: i.name,
                  left: number(i.projectedLeft, 2),
                  quantity: number(i.quantity, 2),
                  date: i.expiryDate,
                })}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** Readiness: how many days the household's stock lasts, against its goal. */
export function ReadinessScreen(props: { revision: number }) {
  return (
    <OptionalScreen<Readiness>
      feature="readiness"
      path="/api/inventory/readiness"
      title={t('household.readiness')}
      revision={props.revision}
    >
      {(data) => <ReadinessView r={data} />}
    </OptionalScreen>
  );
}
