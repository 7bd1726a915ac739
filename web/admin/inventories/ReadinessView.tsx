import { ListOrNone, Loading, type Entry } from '#web/admin/components/ui.tsx';
import { formatCalendarDate } from '#web/admin/format.ts';
import { useLoad } from '#web/admin/hooks.ts';
import { locale, t } from '#web/admin/i18n.ts';
import { Facts } from '#web/shared/Facts.tsx';
import { ErrorMessage } from '#web/shared/form.tsx';
import { inventoryReadiness } from './inventories.api.ts';

const number = (n: number) => n.toLocaleString(locale);

function ItemList(props: { title: string; entries: Entry[] }) {
  return (
    <>
      <h4>{props.title}</h4>
      <ListOrNone class="readiness-list" none={t('readiness.none')} entries={props.entries} />
    </>
  );
}

/** An inventory's readiness (GET /api/admin/inventories/{id}/readiness), read-only. */
export function ReadinessView(props: { inventoryId: string; title: string }) {
  const loaded = useLoad(() => inventoryReadiness(props.inventoryId), [props.inventoryId]);
  const r = loaded.data;
  return (
    <section class="readiness-view" aria-label={t('readiness.of', { inventory: props.title })}>
      <ErrorMessage message={loaded.error} />
      {loaded.loading && !r && <Loading />}
      {r && (
        <>
          <p>
            <strong>
              {t('readiness.days', {
                days: number(r.days),
                size: r.householdSize,
                goal: r.goalDays,
              })}
            </strong>{' '}
            <span class={r.goalMet ? 'badge' : 'badge warning'}>
              {r.goalMet ? t('readiness.goalMet') : t('readiness.goalMissed')}
            </span>
          </p>
          <Facts
            facts={[
              [
                t('readiness.food'),
                t('readiness.foodFacts', { kcal: number(r.food.kcal), days: number(r.food.days) }),
              ],
              [t('readiness.withoutKcal'), r.food.itemsWithoutKcal],
              [
                t('readiness.water'),
                t('readiness.waterFacts', {
                  liters: number(r.water.liters),
                  days: number(r.water.days),
                }),
              ],
              !r.goalMet && [
                t('readiness.shortfall'),
                t('readiness.shortfallFacts', {
                  kcal: number(r.shortfall.kcal),
                  liters: number(r.shortfall.liters),
                }),
              ],
            ]}
          />
          <ItemList
            title={t('readiness.runOut')}
            entries={r.runOut.map((item) => [
              item.itemId,
              t('readiness.daysLeft', { name: item.name, days: number(item.daysLeft) }),
            ])}
          />
          <ItemList
            title={t('readiness.expiring')}
            entries={r.expiringBeforeUse.map((item) => [
              item.itemId,
              t('readiness.projectedLeft', {
                name: item.name,
                left: number(item.projectedLeft),
                quantity: number(item.quantity),
                date: formatCalendarDate(item.expiryDate),
              }),
            ])}
          />
        </>
      )}
    </section>
  );
}
