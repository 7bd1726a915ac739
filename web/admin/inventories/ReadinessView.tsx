import { Loading } from '#web/admin/components/ui.tsx';
import { formatCalendarDate } from '#web/admin/format.ts';
import { useLoad } from '#web/admin/hooks.ts';
import { locale, t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { inventoryReadiness } from './inventories.api.ts';

const number = (n: number) => n.toLocaleString(locale);

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
          <dl class="facts">
            <dt>{t('readiness.food')}</dt>
            <dd>
              {t('readiness.foodFacts', { kcal: number(r.food.kcal), days: number(r.food.days) })}
            </dd>
            <dt>{t('readiness.withoutKcal')}</dt>
            <dd>{r.food.itemsWithoutKcal}</dd>
            <dt>{t('readiness.water')}</dt>
            <dd>
              {t('readiness.waterFacts', {
                liters: number(r.water.liters),
                days: number(r.water.days),
              })}
            </dd>
            {!r.goalMet && (
              <>
                <dt>{t('readiness.shortfall')}</dt>
                <dd>
                  {t('readiness.shortfallFacts', {
                    kcal: number(r.shortfall.kcal),
                    liters: number(r.shortfall.liters),
                  })}
                </dd>
              </>
            )}
          </dl>
          <h4>{t('readiness.runOut')}</h4>
          <ul class="readiness-list">
            {r.runOut.length === 0 && <li class="muted">{t('readiness.none')}</li>}
            {r.runOut.map((item) => (
              <li key={item.itemId}>
                {t('readiness.daysLeft', { name: item.name, days: number(item.daysLeft) })}
              </li>
            ))}
          </ul>
          <h4>{t('readiness.expiring')}</h4>
          <ul class="readiness-list">
            {r.expiringBeforeUse.length === 0 && <li class="muted">{t('readiness.none')}</li>}
            {r.expiringBeforeUse.map((item) => (
              <li key={item.itemId}>
                {t('readiness.projectedLeft', {
                  name: item.name,
                  left: number(item.projectedLeft),
                  quantity: number(item.quantity),
                  date: formatCalendarDate(item.expiryDate),
                })}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
