import { call } from '../extension/contract.js';
import { localize, t } from './i18n.js';

localize();
const status = document.getElementById('core-status');
call('ping')
  .then((pong) => { status.textContent = t('coreReady', pong.core); status.dataset.state = 'ready'; })
  .catch((e) => { status.textContent = t('coreError', e.message); status.dataset.state = 'error'; });
